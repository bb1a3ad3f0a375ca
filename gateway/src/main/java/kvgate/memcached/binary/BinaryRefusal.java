package kvgate.memcached.binary;

/**
 * Why a request, or one path of a sub-document command, is refused: the status to answer. Thrown where the reason
 * is found (deep in a path or a value, or in a request's framing extras) and caught where the reply is made; it
 * carries no stack trace, as it is an answer, not a fault.
 */
public final class BinaryRefusal extends Exception {
    private final BinaryStatus status;

    public BinaryRefusal(BinaryStatus status) {
        super(status.name(), null, false, false);
        this.status = status;
    }

    public BinaryStatus status() {
        return status;
    }
}
