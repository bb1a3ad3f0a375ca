package kvgate.backend.memcached;

/**
 * A request was written to its server but no reply came: it timed out, or the connection was lost or skipped it.
 * Unlike {@link ServerUnavailable}, the server may have carried the request out, so a write's outcome is unknown.
 */
final class ReplyLost extends Exception {
    ReplyLost(String message) {
        super(message, null, false, false); // expected under failure: no stack trace
    }
}
