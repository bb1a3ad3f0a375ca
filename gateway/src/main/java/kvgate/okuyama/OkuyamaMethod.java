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
    /** getValueScript: JavaScript run on the value, which may also store its result. */
    GET_VALUE_SCRIPT(8),
    /** getValueScriptForUpdate: the same as 8 (the reference runs it on every replica of the item). */
    GET_VALUE_SCRIPT_FOR_UPDATE(9),
    /** Answered as 4, as the reference answers it. */
    GET_TAG_KEYS(3),
    REMOVE_VALUE(5),
    SET_NEW_VALUE(6),
    INCR_VALUE(13),
    DECR_VALUE(14),
    GET_VALUE_VERSION_CHECK(15),
    SET_VALUE_VERSION_CHECK(16),
    /** getValueAndUpdateExpireTime (and updateExpireTime): a get that extends the item by its stored period. */
    GET_VALUE_AND_UPDATE_EXPIRE_TIME(17),
    GET_MULTI_VALUE(22),
    LOCK_DATA(30),
    RELEASE_LOCK_DATA(31),
    START_TRANSACTION(37),
    GET_TAG_VALUES(23),
    REMOVE_TAG_FROM_KEY(40),
    SET_VALUE_AND_CREATE_INDEX(42),
    SEARCH_VALUE(43),
    REMOVE_SEARCH_INDEX(44),
    /** setDictionaryCharacters / clearDictionaryCharacters. */
    DICTIONARY_CHARACTERS(50),
    /** The slots a tag's keys are kept in, for getTagKeysResult's paging. */
    GET_TAG_INDEX_LIST(45),
    GET_TARGET_INDEX_TAG_KEYS(46),
    CREATE_LIST_STRUCT(51),
    LIST_L_PUSH(52),
    LIST_R_PUSH(53),
    LIST_INDEX(54),
    LIST_L_POP(55),
    LIST_R_POP(56),
    LIST_LEN(57),
    /** UtilClient's truncate, of a MasterNode. */
    TRUNCATE(61),
    /** UtilClient's full data export, of a DataNode. */
    DATA_EXPORT(101),
    /** UtilClient's key list, of a DataNode. */
    KEY_LIST(103),
    SEND_MULTI_BYTE_VALUE(111),
    /** requestReadByteValue: a get answered as a compressed, length-prefixed payload. */
    READ_BYTE_VALUE(201),
    GET_OKUYAMA_VERSION(999);

    private final int code;

    OkuyamaMethod(int code) {
        this.code = code;
    }

    /** The number a request line of this method starts with. */
    int code() {
        return code;
    }

    /** Whether this is one of the list structure's methods, whose first field names a list rather than a key. */
    boolean list() {
        return code >= 51 && code <= 57;
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
