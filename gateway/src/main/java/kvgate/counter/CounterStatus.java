package kvgate.counter;

import java.nio.charset.StandardCharsets;
import kvgate.spi.Status;

/** Status codes of the counter protocol, with the message each error reply carries as its body. */
public enum CounterStatus {
    OK(0x00, ""),
    NOT_FOUND(0x01, "Not found"),
    INVALID_ARGUMENTS(0x04, "Invalid arguments"),
    RESOURCE_NOT_AVAILABLE(0x21, "Resource not available"),
    NOT_ACQUIRED(0x22, "Not acquired"),
    UNKNOWN_COMMAND(0x81, "Unknown command"),
    OUT_OF_MEMORY(0x82, "Out of memory");

    private final int code;
    private final byte[] message;

    CounterStatus(int code, String message) {
        this.code = code;
        this.message = message.getBytes(StandardCharsets.US_ASCII);
    }

    public int code() {
        return code;
    }

    byte[] message() {
        return message;
    }

    /**
     * The protocol's code for a status of the operation stream. The protocol has no code for a store failure;
     * "Out of memory" is the one that tells a client the server could not serve it now.
     */
    static CounterStatus of(Status status) {
        return switch (status) {
            case OK -> OK;
            case NOT_FOUND -> NOT_FOUND;
            case LIMIT_REACHED -> RESOURCE_NOT_AVAILABLE;
            case NOT_HELD -> NOT_ACQUIRED;
            case INVALID, TOO_LARGE, NON_NUMERIC, EXISTS, NOT_STORED -> INVALID_ARGUMENTS;
            case UNSUPPORTED -> UNKNOWN_COMMAND;
            case TEMPORARY_FAILURE, BACKEND_ERROR -> OUT_OF_MEMORY;
        };
    }
}
