package kvgate.backend.okuyama;

/** No MasterNode answered a request: every one tried was down, ejected, or lost the connection it was sent on. */
final class MasterUnavailable extends RuntimeException {
    MasterUnavailable(String message) {
        super(message, null, false, false);
    }
}
