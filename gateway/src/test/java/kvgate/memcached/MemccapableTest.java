package kvgate.memcached;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import kvgate.testing.MemcachedServers;
import kvgate.testing.TestGateway;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * libmemcached's conformance checker for memcached servers, run against the gateway on each backend (the local
 * store, and a pool of two real memcached servers) in each protocol (binary, text): every test must pass. bin/test
 * installs it (Debian package libmemcached-tools).
 */
@Tag("servers")
class MemccapableTest {

    @ParameterizedTest(name = "{1} on {0}")
    @CsvSource({"local, binary", "memcached, binary", "local, text", "memcached, text"})
    void everyTestPasses(String backend, String protocol) throws Exception {
        try (MemcachedServers servers = MemcachedServers.start(backend.equals("memcached") ? 2 : 0);
                TestGateway gateway = TestGateway.start(backend.equals("memcached")
                        ? servers.backendSettings()
                        : Map.of())) {
            Process process = new ProcessBuilder("memccapable", protocol.equals("binary") ? "-b" : "-a", "-h", "127.0.0.1", "-p",
                    Integer.toString(gateway.port()))
                    .redirectErrorStream(true)
                    .start();
            assertTrue(process.waitFor(120, TimeUnit.SECONDS), "memccapable did not finish");
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertEquals(0, process.exitValue(), output);
            assertTrue(output.contains("All tests passed"), output);
            assertFalse(output.contains("[fail]"), output);
            assertTrue(protocol.equals("binary") ? output.contains("binary getkq") && output.contains("binary stat")
                    : output.contains("ascii mget") && output.contains("ascii stat"), output);
        }
    }
}
