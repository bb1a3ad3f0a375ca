package kvgate.memcached;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import kvgate.testing.MemcachedServers;
import kvgate.testing.TestGateway;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Real text-protocol clients in two languages, Debian's python3-pymemcache and libcache-memcached-perl (which
 * {@code bin/test} installs), run their storage, CAS, multi-get, arithmetic, expiry and error checks against the
 * gateway, on the local store and on a pool of real memcached servers.
 */
@Tag("servers")
class TextClientLibrariesTest {

    @ParameterizedTest
    @ValueSource(strings = {"local", "memcached"})
    void pymemcacheAndCacheMemcachedWork(String backend, @TempDir Path dir) throws Exception {
        Path python = script(dir, "pymemcache_client.py");
        Path perl = script(dir, "cache_memcached_client.pl");
        try (MemcachedServers servers = MemcachedServers.start(backend.equals("memcached") ? 2 : 0);
             TestGateway gateway = TestGateway.start(backend.equals("memcached") ? servers.backendSettings()
                     : Map.of())) {
            String port = Integer.toString(gateway.port());
            assertEquals("OK", run(List.of(executable("/usr/bin/python3", "python3"), python.toString(),
                    "127.0.0.1", port, "py-")));
            assertEquals("OK", run(List.of(executable("/usr/bin/perl", "perl"), perl.toString(),
                    "127.0.0.1:" + port, "pl-")));
        }
    }

    private Path script(Path dir, String name) throws IOException {
        Path script = dir.resolve(name);
        try (InputStream in = getClass().getResourceAsStream("/memcached/" + name)) {
            Files.copy(in, script);
        }
        return script;
    }

    /** Debian's own interpreter, which has the packages, even where another comes first on PATH. */
    private static String executable(String debian, String fallback) {
        return Files.isExecutable(Path.of(debian)) ? debian : fallback;
    }

    private static String run(List<String> command) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError(command + " did not finish");
        }
        return new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
    }
}
