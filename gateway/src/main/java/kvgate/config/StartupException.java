package kvgate.config;

/** The gateway cannot start; the message says what to fix (a plugin, a port, a directory). */
public final class StartupException extends Exception {
    public StartupException(String message) {
        super(message);
    }

    public StartupException(String message, Throwable cause) {
        super(message, cause);
    }
}
