package kvgate.backend.memcached;

/**
 * A request never reached its server: the server is down, ejected or not connected, or the backend is closed. The
 * server did not carry it out, so a retry is safe.
 */
final class ServerUnavailable extends Exception {
    ServerUnavailable(String message) {
        super(message, null, false, false); // expected under failure: no stack trace
    }
}
