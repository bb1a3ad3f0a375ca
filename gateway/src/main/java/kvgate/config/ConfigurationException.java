package kvgate.config;

/** The configuration cannot be used; the message names the key, the value and what is allowed. */
public final class ConfigurationException extends Exception {
    public ConfigurationException(String message) {
        super(message);
    }
}
