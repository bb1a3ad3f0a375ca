package kvgate.backend.memcached;

/** A request could not be served by its server: down, ejected, timed out or disconnected. */
final class ServerUnavailable extends Exception {
    ServerUnavailable(String message) {
        super(message, null, false, false); // expected under failure: no stack trace
    }
}
