package kvgate.okuyama;

/**
 * The okuyama methods the gateway serves, by the number a request line starts with (the numbering of okuyama's
 * protocol document and of its Java client, whose method each is named after). A reply starts with the same number,
 * but for getTagKeys's.
 */
enum OkuyamaMethod {
    INIT_CLIENT(0),
    SET_VALUE(1),
    GET_VALUE(2),
    /** Answered as 4, as the reference answers it. */
    GET_TAG_KEYS(3),
    REMOVE_VALUE(5),
    SET_NEW_VALUE(6),
    INCR_VALUE(13),
    DECR_VALUE(14),
    GET_VALUE_VERSION_CHECK(15),
    SET_VALUE_VERSION_CHECK(16),
    GET_MULTI_VALUE(22),
    GET_TAG_VALUES(23),
    REMOVE_TAG_FROM_KEY(40),
    SET_VALUE_AND_CREATE_INDEX(42),
    SEARCH_VALUE(43),
    GET_OKUYAMA_VERSION(999);

    private final int code;

    OkuyamaMethod(int code) {
        this.code = code;
    }

    /** The number a request line of this method starts with. */
    int code() {
        return code;
    }

    /** The number its reply starts with. */
    int replyCode() {
        return this == GET_TAG_KEYS ? 4 : code;
    }

    /** The method numbered {@code code}, or null for a number the gateway does not serve. */
    static OkuyamaMethod of(int code) {
        for (OkuyamaMethod method : values()) {
            if (method.code == code) {
                return method;
            }
        }
        return null;
    }
}
