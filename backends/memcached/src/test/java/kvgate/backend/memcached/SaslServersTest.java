package kvgate.backend.memcached;

import static kvgate.testing.BackendUnderTest.bytes;
import static kvgate.testing.BackendUnderTest.get;
import static kvgate.testing.BackendUnderTest.set;
import static kvgate.testing.BackendUnderTest.valueText;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.Map;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import kvgate.spi.Status;
import kvgate.testing.BackendUnderTest;
import kvgate.testing.BinaryClient;
import kvgate.testing.BinaryClient.Response;
import kvgate.testing.MemcachedServers;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A pool of real memcached servers that require SASL authentication (-S, Cyrus SASL with a password database): one
 * offering PLAIN alone, one CRAM-MD5 alone. With the right credentials the backend's connections authenticate and
 * serve every key on both; with a wrong password nothing is served and nothing reaches the servers unauthenticated.
 */
@Tag("servers")
class SaslServersTest {
    private static final String USER = "gateway";
    private static final String PASSWORD = "pool:secret";
    private static final int KEYS = 100;
    private static final int SASL_AUTH = 0x21;
    private static final int SASL_STEP = 0x22;

    @TempDir
    Path directory;
    private MemcachedServers servers;

    @BeforeEach
    void startThePool() throws Exception {
        servers = MemcachedServers.startWithSasl(directory, USER, PASSWORD, "plain", "cram-md5");
    }

    @AfterEach
    void stopThePool() throws Exception {
        servers.close();
    }

    private BackendUnderTest backend(String password) throws Exception {
        return new BackendUnderTest(new MemcachedBackendFactory(), Map.of("servers", servers.serverList(),
                "timeout_ms", "2000", "retry_ms", "600000", "sasl_user", USER, "sasl_password", password));
    }

    /** A server's general stats, read over a connection of the test's own, authenticated by its mechanism. */
    private Map<String, String> stats(int server) throws Exception {
        try (BinaryClient direct = new BinaryClient(servers.port(server))) {
            if (server == 0) {
                assertEquals(0, direct.authenticate(USER, PASSWORD).status());
            } else {
                Response challenge = direct.call(SASL_AUTH, BinaryClient.NONE, BinaryClient.bytes("CRAM-MD5"),
                        BinaryClient.NONE, 0);
                assertEquals(0x21, challenge.status(), "CRAM-MD5 starts with a challenge");
                Mac mac = Mac.getInstance("HmacMD5");
                mac.init(new SecretKeySpec(PASSWORD.getBytes(StandardCharsets.UTF_8), "HmacMD5"));
                String answer = USER + " " + HexFormat.of().formatHex(mac.doFinal(challenge.value()));
                assertEquals(0, direct.call(SASL_STEP, BinaryClient.NONE, BinaryClient.bytes("CRAM-MD5"),
                        BinaryClient.bytes(answer), 0).status());
            }
            return direct.stats("");
        }
    }

    @Test
    void theBackendAuthenticatesToEveryServerAndServesTheirKeys() throws Exception {
        try (BackendUnderTest memcached = backend(PASSWORD)) {
            for (int i = 0; i < KEYS; i++) {
                assertEquals(Status.OK, memcached.run(set("key-" + i, "value-" + i)).status(), "set key-" + i);
            }
            for (int i = 0; i < KEYS; i++) {
                assertEquals("value-" + i, valueText(memcached.run(get("key-" + i))));
            }
            // Both servers hold some of the keys: each accepted the backend's credentials by its own mechanism.
            long items = 0;
            for (int server = 0; server < 2; server++) {
                Map<String, String> stats = stats(server);
                long held = Long.parseLong(stats.get("curr_items"));
                assertTrue(held > 0 && held < KEYS, "items on server " + server + ": " + held);
                assertEquals("0", stats.get("auth_errors"), "refusals on server " + server);
                items += held;
            }
            assertEquals(KEYS, items);
            try (BinaryClient direct = new BinaryClient(servers.port(1))) {
                assertEquals(0x20, direct.get("key-0").status(), "the server serves no one unauthenticated");
            }
        }
    }

    @Test
    void aWrongPasswordServesNothingAndSendsNothingUnauthenticated() throws Exception {
        try (BackendUnderTest memcached = backend("wrong")) {
            for (int i = 0; i < 10; i++) {
                assertEquals(Status.TEMPORARY_FAILURE, memcached.run(set("key-" + i, "value")).status(),
                        "set key-" + i);
                assertEquals(Status.TEMPORARY_FAILURE, memcached.run(get("key-" + i)).status(), "get key-" + i);
            }
            Map<String, String> plain = stats(0);
            assertEquals("0", plain.get("curr_items"));
            assertTrue(Long.parseLong(plain.get("auth_errors")) > 0, "refusals counted by the server: " + plain);
            // Only authentications reached it: no get or set was sent on a connection it had refused.
            assertEquals("0", plain.get("cmd_get"));
            assertEquals("0", plain.get("cmd_set"));
        }
    }
}
