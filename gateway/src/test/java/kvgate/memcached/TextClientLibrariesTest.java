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
import kvgate.testing.BackendServers;
import kvgate.testing.MemcachedServers;
import kvgate.testing.RedisServers;
import kvgate.testing.TestGateway;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Real memcached clients, which {@code bin/test} installs from Debian's packages, run their storage, CAS, multi-get,
 * arithmetic, expiry and error checks against the gateway: two text-protocol clients in two languages
 * (python3-pymemcache and libcache-memcached-perl), and a meta-protocol one (Dalli 3.2 for Ruby, which sends only
 * mg, ms, md, ma and mn, with base64 keys and quiet mode).
 */
@Tag("servers")
class TextClientLibrariesTest {

    @ParameterizedTest
    @ValueSource(strings = {"local", "memcached", "redis"})
    void pymemcacheAndCacheMemcachedWork(String backend, @TempDir Path dir) throws Exception {
        Path python = script(dir, "pymemcache_client.py");
        Path perl = script(dir, "cache_memcached_client.pl");
        try (BackendServers servers = servers(backend);
             TestGateway gateway = TestGateway.start(servers.backendSettings())) {
            String port = Integer.toString(gateway.port());
            assertEquals("OK", run(List.of(executable("/usr/bin/python3", "python3"), python.toString(),
                    "127.0.0.1", port, "py-")));
            assertEquals("OK", run(List.of(executable("/usr/bin/perl", "perl"), perl.toString(),
                    "127.0.0.1:" + port, "pl-")));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"local", "memcached", "redis"})
    void dalliOverTheMetaProtocolWorks(String backend, @TempDir Path dir) throws Exception {
        Path ruby = script(dir, "dalli_meta_client.rb");
        try (BackendServers servers = servers(backend);
             TestGateway gateway = TestGateway.start(servers.backendSettings())) {
            assertEquals("OK", run(List.of(executable("/usr/bin/ruby", "ruby"), ruby.toString(),
                    "127.0.0.1:" + gateway.port(), "rb-")));
        }
    }

    /** The servers of {@code backend}: two memcached servers, one Redis, or none for the local store. */
    private static BackendServers servers(String backend) throws Exception {
        return switch (backend) {
            case "memcached" -> MemcachedServers.start(2);
            case "redis" -> RedisServers.standalone();
            default -> new BackendServers() {
                @Override
                public Map<String, String> backendSettings() {
                    return Map.of();
                }

                @Override
                public void close() {
                }
            };
        };
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
