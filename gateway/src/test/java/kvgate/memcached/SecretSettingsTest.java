package kvgate.memcached;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.util.Map;
import kvgate.testing.BinaryClient;
import kvgate.testing.TestGateway;
import org.junit.jupiter.api.Test;

/**
 * The memcached port's {@code stats settings} lists every setting, a backend's too, but says of a secret only that
 * it is set: a client of the gateway may read its configuration, not the password it gives its memcached servers.
 */
class SecretSettingsTest {
    private static final String PASSWORD = "pool:secret";

    @Test
    void aPasswordIsListedOnlyAsSet() throws Exception {
        try (TestGateway gateway = TestGateway.start(Map.of("memcached.sasl_user", "gateway",
                "memcached.sasl_password", PASSWORD));
             BinaryClient client = new BinaryClient(gateway.port())) {
            Map<String, String> settings = client.stats("settings");
            assertEquals("gateway", settings.get("memcached.sasl_user"));
            assertEquals("(set)", settings.get("memcached.sasl_password"));
            assertFalse(settings.toString().contains(PASSWORD), settings.toString());
        }
    }
}
