package kvgate.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HashMap;
import java.util.Map;
import kvgate.app.Gateway;
import kvgate.config.Configuration;
import kvgate.counter.CounterProtocol;
import kvgate.memcached.MemcachedProtocol;
import kvgate.mpdb.MpdbProtocol;
import kvgate.okuyama.OkuyamaProtocol;

/**
 * A real gateway in the test's JVM, loading the local store plugin zip from the build's plugin directory exactly as
 * a deployment does, listening on a free loopback port.
 */
public final class TestGateway implements AutoCloseable {
    private final Gateway gateway;
    /** The servers behind this gateway that it owns: closed after it. Null when there are none. */
    private final BackendServers servers;

    private TestGateway(Gateway gateway, BackendServers servers) {
        this.gateway = gateway;
        this.servers = servers;
    }

    /** The plugin directory the build fills with the local store plugin zip. */
    public static Path pluginsDirectory() {
        String directory = System.getProperty("kvgate.test.plugins");
        if (directory == null) {
            throw new IllegalStateException(
                    "system property kvgate.test.plugins is not set (run the tests with Maven)");
        }
        return Path.of(directory);
    }

    /** The settings every test gateway starts from: in-memory store, free port on loopback, two threads. */
    public static Map<String, String> defaults() {
        Map<String, String> settings = new HashMap<>();
        settings.put("plugins.dir", pluginsDirectory().toAbsolutePath().toString());
        settings.put("memcached.bind", "127.0.0.1");
        settings.put("memcached.port", "0");
        settings.put("local.path", ":memory:");
        settings.put("io_threads", "2");
        settings.put("counter.enable", "true");
        settings.put("counter.bind", "127.0.0.1");
        settings.put("counter.port", "0");
        settings.put("okuyama.enable", "true");
        settings.put("okuyama.bind", "127.0.0.1");
        settings.put("okuyama.port", "0");
        settings.put("mpdb.enable", "true");
        settings.put("mpdb.bind", "127.0.0.1");
        settings.put("mpdb.port", "0");
        return settings;
    }

    /**
     * The setting that makes the memcached port admit the users of a password file, written into {@code directory}
     * with {@code contents} (memcached's format, a line {@code user:password} each).
     */
    public static Map<String, String> passwordFile(Path directory, String contents) throws IOException {
        Path pwdb = directory.resolve("users");
        Files.writeString(pwdb, contents);
        Files.setPosixFilePermissions(pwdb, PosixFilePermissions.fromString("rw-------"));
        return Map.of("memcached.sasl_pwdb", pwdb.toString());
    }

    /** {@code base} with the {@code key, value, key, value, ...} pairs put over it, as a new map. */
    public static Map<String, String> with(Map<String, String> base, String... keysAndValues) {
        if (keysAndValues.length % 2 != 0) {
            throw new IllegalArgumentException("keys and values come in pairs");
        }
        Map<String, String> settings = new HashMap<>(base);
        for (int i = 0; i < keysAndValues.length; i += 2) {
            settings.put(keysAndValues[i], keysAndValues[i + 1]);
        }
        return settings;
    }

    public static TestGateway start() throws Exception {
        return start(Map.of());
    }

    /** Starts with {@link #defaults()} overridden by {@code overrides}. */
    public static TestGateway start(Map<String, String> overrides) throws Exception {
        return new TestGateway(open(overrides), null);
    }

    /**
     * Starts on {@code servers} (their {@link BackendServers#backendSettings()}, then {@code overrides}); the
     * gateway owns them from then on: it closes them after itself, or at once if it fails to start.
     */
    public static TestGateway start(BackendServers servers, Map<String, String> overrides) throws Exception {
        Map<String, String> settings = new HashMap<>(servers.backendSettings());
        settings.putAll(overrides);
        try {
            return new TestGateway(open(settings), servers);
        } catch (Exception | Error e) {
            servers.close();
            throw e;
        }
    }

    /**
     * Starts with {@link #defaults()} overridden by {@code live}, which the test may change afterwards: the gateway
     * reads it again on each {@link Gateway#reload}, as it reads its file again in production.
     */
    public static TestGateway startReloadable(Map<String, String> live) throws Exception {
        Configuration.Source source = () -> {
            Map<String, String> settings = defaults();
            settings.putAll(live);
            return Configuration.of(settings);
        };
        return new TestGateway(Gateway.start(source, pluginsDirectory().getParent()), null);
    }

    private static Gateway open(Map<String, String> overrides) throws Exception {
        Map<String, String> settings = defaults();
        settings.putAll(overrides);
        return Gateway.start(Configuration.of(settings), pluginsDirectory().getParent());
    }

    public int port() {
        return gateway.port(MemcachedProtocol.NAME);
    }

    public int okuyamaPort() {
        return gateway.port(OkuyamaProtocol.NAME);
    }

    public int mpdbPort() {
        return gateway.port(MpdbProtocol.NAME);
    }

    public int counterPort() {
        return gateway.port(CounterProtocol.NAME);
    }

    /** MPDB clients whose ordering state the gateway holds now. */
    public long mpdbClients() {
        return Long.parseLong(gateway.metrics().meters().get(MpdbProtocol.CLIENTS_METER));
    }

    public Gateway gateway() {
        return gateway;
    }

    @Override
    public void close() {
        try {
            gateway.close();
        } finally {
            if (servers != null) {
                try {
                    servers.close();
                } catch (Exception e) {
                    throw new IllegalStateException("closing the servers behind the gateway failed", e);
                }
            }
        }
    }
}
