package kvgate.memcached;

/**
 * Why a sub-document command, or one of its paths, failed: the status to answer. Thrown where the failure is found,
 * deep in a path or a value, and caught where the command's reply is made; it carries no stack trace, as it is an
 * answer, not a fault.
 */
final class SubdocFailure extends Exception {
    private final BinaryStatus status;

    SubdocFailure(BinaryStatus status) {
        super(status.name(), null, false, false);
        this.status = status;
    }

    BinaryStatus status() {
        return status;
    }
}
