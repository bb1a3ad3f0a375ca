package kvgate.memcached;

import java.nio.charset.StandardCharsets;
import kvgate.spi.Status;

/** Response status codes of the memcached binary protocol, with the message text memcached sends with each. */
public enum BinaryStatus {
    SUCCESS(0x0000, ""),
    KEY_NOT_FOUND(0x0001, "Not found"),
    KEY_EXISTS(0x0002, "Data exists for key."),
    TOO_LARGE(0x0003, "Too large."),
    INVALID_ARGUMENTS(0x0004, "Invalid arguments"),
    NOT_STORED(0x0005, "Not stored."),
    NON_NUMERIC(0x0006, "Non-numeric server-side value for incr or decr"),
    NO_BUCKET(0x0008, "No bucket"),
    OUT_OF_RANGE(0x0022, "Out of range"),
    UNKNOWN_COMMAND(0x0081, "Unknown command"),
    OUT_OF_MEMORY(0x0082, "Out of memory"),
    NOT_SUPPORTED(0x0083, "Not supported"),
    INTERNAL_ERROR(0x0084, "Internal error"),
    BUSY(0x0085, "Busy"),
    TEMPORARY_FAILURE(0x0086, "Temporary failure"),
    UNKNOWN_COLLECTION(0x0088, "Unknown collection"),
    CANNOT_APPLY_MANIFEST(0x008a, "Cannot apply collections manifest"),
    UNKNOWN_SCOPE(0x008c, "Unknown scope");

    private final int code;
    private final byte[] message;

    BinaryStatus(int code, String message) {
        this.code = code;
        this.message = message.getBytes(StandardCharsets.US_ASCII);
    }

    public int code() {
        return code;
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
