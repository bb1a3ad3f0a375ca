package kvgate.memcached;

/**
 * Why a request, or one path of a sub-document command, is refused: the status to answer. Thrown where the reason
 * is found (deep in a path or a value, or in a request's framing extras) and caught where the reply is made; it
 * carries no stack trace, as it is an answer, not a fault.
 */
final class BinaryRefusal extends Exception {
    private final BinaryStatus status;

    BinaryRefusal(BinaryStatus status) {
        super(status.name(), null, false, false);
        this.status = status;
    }

    BinaryStatus status() {
        return status;
    }
}
