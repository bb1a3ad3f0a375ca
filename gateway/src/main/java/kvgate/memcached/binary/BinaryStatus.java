package kvgate.memcached.binary;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.util.List;
import kvgate.spi.Status;

/** Response status codes of the memcached binary protocol, with the message text memcached sends with each. */
public enum BinaryStatus {
    SUCCESS(0x0000, "", "SUCCESS", "success"),
    KEY_NOT_FOUND(0x0001, "Not found", "KEY_ENOENT", "item-only"),
    KEY_EXISTS(0x0002, "Data exists for key.", "KEY_EEXISTS", "item-only"),
    TOO_LARGE(0x0003, "Too large.", "E2BIG", "invalid-input"),
    INVALID_ARGUMENTS(0x0004, "Invalid arguments", "EINVAL", "invalid-input"),
    NOT_STORED(0x0005, "Not stored.", "NOT_STORED", "item-only"),
    NON_NUMERIC(0x0006, "Non-numeric server-side value for incr or decr", "DELTA_BADVAL", "invalid-input"),
    NO_BUCKET(0x0008, "No bucket", "NO_BUCKET", "conn-state-invalidated"),
    AUTH_ERROR(0x0020, "Auth failure", "AUTH_ERROR", "auth"),
    AUTH_CONTINUE(0x0021, "", "AUTH_CONTINUE", "auth", "special-handling"),
    OUT_OF_RANGE(0x0022, "Out of range", "ERANGE", "invalid-input"),
    NO_ACCESS(0x0024, "No access", "EACCESS", "support"),
    UNKNOWN_FRAME_INFO(0x0080, "Unknown frame info", "UNKNOWN_FRAME_INFO", "support"),
    UNKNOWN_COMMAND(0x0081, "Unknown command", "UNKNOWN_COMMAND", "support"),
    OUT_OF_MEMORY(0x0082, "Out of memory", "ENOMEM", "temp", "retry-later"),
    NOT_SUPPORTED(0x0083, "Not supported", "NOT_SUPPORTED", "support"),
    INTERNAL_ERROR(0x0084, "Internal error", "EINTERNAL", "internal"),
    BUSY(0x0085, "Busy", "EBUSY", "temp", "retry-now"),
    TEMPORARY_FAILURE(0x0086, "Temporary failure", "ETMPFAIL", "temp", "retry-now"),
    UNKNOWN_COLLECTION(0x0088, "Unknown collection", "UNKNOWN_COLLECTION", "invalid-input"),
    CANNOT_APPLY_MANIFEST(0x008a, "Cannot apply collections manifest", "CANNOT_APPLY_COLLECTIONS_MANIFEST",
            "invalid-input"),
    UNKNOWN_SCOPE(0x008c, "Unknown scope", "UNKNOWN_SCOPE", "invalid-input"),
    DURABILITY_INVALID_LEVEL(0x00a0, "Invalid durability requirement", "DurabilityInvalidLevel", "invalid-input"),
    DURABILITY_IMPOSSIBLE(0x00a1, "Durability cannot be promised here", "DurabilityImpossible", "item-only",
            "invalid-input"),
    // Sub-document statuses: a path's own status in a multi-path reply, or the reply's status for a single-path
    // command. The names are Couchbase's, so that its clients recognise them.
    SUBDOC_PATH_ENOENT(0x00c0, "Sub-document: no such path", "SUBDOC_PATH_ENOENT", "subdoc", "item-only"),
    SUBDOC_PATH_MISMATCH(0x00c1, "Sub-document: the path does not fit the document's shape", "SUBDOC_PATH_MISMATCH",
            "subdoc", "item-only"),
    SUBDOC_PATH_EINVAL(0x00c2, "Sub-document: malformed path", "SUBDOC_PATH_EINVAL", "subdoc", "invalid-input"),
    SUBDOC_PATH_E2BIG(0x00c3, "Sub-document: path too long", "SUBDOC_PATH_E2BIG", "subdoc", "invalid-input"),
    SUBDOC_DOC_E2DEEP(0x00c4, "Sub-document: document nested too deep to read", "SUBDOC_PATH_E2DEEP", "subdoc",
            "invalid-input"),
    SUBDOC_VALUE_CANTINSERT(0x00c5, "Sub-document: the value cannot go there", "SUBDOC_VALUE_CANTINSERT",
            "subdoc", "invalid-input"),
    SUBDOC_DOC_NOTJSON(0x00c6, "Sub-document: the document is not JSON", "SUBDOC_DOC_NOTJSON", "subdoc",
            "item-only"),
    SUBDOC_NUM_ERANGE(0x00c7, "Sub-document: the number there is beyond 64 bits", "SUBDOC_NUM_ERANGE", "subdoc",
            "item-only"),
    SUBDOC_DELTA_EINVAL(0x00c8, "Sub-document: the delta is not a non-zero 64-bit integer", "SUBDOC_DELTA_EINVAL",
            "subdoc", "item-only"),
    SUBDOC_PATH_EEXISTS(0x00c9, "Sub-document: the path is already there", "SUBDOC_PATH_EEXISTS", "subdoc",
            "item-only"),
    SUBDOC_VALUE_ETOODEEP(0x00ca, "Sub-document: the value would nest the document too deep",
            "SUBDOC_VALUE_ETOODEEP", "subdoc", "invalid-input", "item-only"),
    SUBDOC_INVALID_COMBO(0x00cb, "Sub-document: these commands cannot go together", "SUBDOC_INVALID_COMBO",
            "subdoc", "invalid-input"),
    SUBDOC_MULTI_PATH_FAILURE(0x00cc, "Sub-document: a path failed; the body says which and why",
            "SUBDOC_MULTI_PATH_FAILURE", "subdoc", "special-handling"),
    SUBDOC_XATTR_INVALID_FLAG_COMBO(0x00ce, "Sub-document: these path flags cannot go together",
            "SUBDOC_XATTR_INVALID_FLAG_COMBO", "subdoc", "invalid-input"),
    SUBDOC_XATTR_UNKNOWN_VATTR(0x00d1, "Sub-document: no such virtual attribute", "SUBDOC_XATTR_UNKNOWN_VATTR",
            "subdoc", "invalid-input"),
    SUBDOC_XATTR_CANT_MODIFY_VATTR(0x00d2, "Sub-document: a virtual attribute cannot be written",
            "SUBDOC_XATTR_CANT_MODIFY_VATTR", "subdoc", "invalid-input"),
    SUBDOC_INVALID_XATTR_ORDER(0x00d4, "Sub-document: attribute paths must come before the document's",
            "SUBDOC_INVALID_XATTR_ORDER", "subdoc", "invalid-input");

    private final int code;
    private final byte[] message;
    /**
     * The name a Couchbase server's error map gives the code, and the attributes telling a client what to do: those
     * a Couchbase server gives, except where this gateway differs (an internal error keeps the connection).
     */
    private final String name;
    private final List<String> attributes;

    BinaryStatus(int code, String message, String name, String... attributes) {
        this.code = code;
        this.message = message.getBytes(StandardCharsets.US_ASCII);
        this.name = name;
        this.attributes = List.of(attributes);
    }

    public int code() {
        return code;
    }

    /**
     * The newest error map version served (an older one is served as asked, and 0 as 1): 2 adds retry advice to 1,
     * which this map gives none of.
     */
    private static final int NEWEST_ERROR_MAP = 2;
    /** The error maps of versions 1 and 2, made once: every Couchbase client asks for one as it connects. */
    private static final byte[][] ERROR_MAPS = {errorMapOf(1), errorMapOf(2)};

    /** The error map for a client that reads versions up to {@code asked} (GET_ERROR_MAP's 16-bit value). */
    public static byte[] errorMap(int asked) {
        return ERROR_MAPS[Math.max(1, Math.min(NEWEST_ERROR_MAP, asked)) - 1];
    }

    /**
     * The error map a Couchbase client asks for with GET_ERROR_MAP (version 1 and 2 share this form): every status
     * this gateway answers, keyed by its code in hex, with its name, description and attributes, so that a client
     * knows how to treat each: whether it concerns the item, the input, the connection, and whether to retry.
     */
    private static byte[] errorMapOf(int version) {
        ObjectNode map = JsonNodeFactory.instance.objectNode();
        map.put("version", version).put("revision", 1);
        ObjectNode errors = map.putObject("errors");
        for (BinaryStatus status : values()) {
            ObjectNode error = errors.putObject(Integer.toHexString(status.code));
            error.put("name", status.name);
            error.put("desc", status.message.length > 0 ? new String(status.message, StandardCharsets.US_ASCII)
                    : status.name);
            status.attributes.forEach(error.putArray("attrs")::add);
        }
        return map.toString().getBytes(StandardCharsets.UTF_8);
    }

    /** The text memcached sends as the value of an error response. */
    byte[] message() {
        return message;
    }

    /** The binary protocol's code for a status of the operation stream. */
    public static BinaryStatus of(Status status) {
        return switch (status) {
            case OK -> SUCCESS;
            case NOT_FOUND -> KEY_NOT_FOUND;
            case EXISTS -> KEY_EXISTS;
            case NOT_STORED -> NOT_STORED;
            case INVALID -> INVALID_ARGUMENTS;
            case TOO_LARGE -> TOO_LARGE;
            case NON_NUMERIC -> NON_NUMERIC;
            case TEMPORARY_FAILURE, LIMIT_REACHED, NOT_HELD -> TEMPORARY_FAILURE;
            case UNSUPPORTED -> NOT_SUPPORTED;
            case BACKEND_ERROR -> INTERNAL_ERROR;
        };
    }
}
