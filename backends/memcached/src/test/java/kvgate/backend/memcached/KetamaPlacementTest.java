package kvgate.backend.memcached;

import static kvgate.testing.BackendUnderTest.bytes;
import static kvgate.testing.BackendUnderTest.valueText;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import kvgate.spi.Item;
import kvgate.spi.Namespace;
import kvgate.spi.Operation;
import kvgate.spi.Result;
import kvgate.spi.Status;
import kvgate.spi.StoreMode;
import kvgate.testing.BackendUnderTest;
import kvgate.testing.MemcachedServers;
import kvgate.testing.Nutcracker;
import net.spy.memcached.MemcachedClient;
import net.spy.memcached.internal.OperationFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The memcached backend places keys on the same servers as twemproxy's ketama (md5) with the same server list, so
 * an existing pool keeps its hit rate when clients move to the gateway. The reference is a real nutcracker process
 * in front of the same real memcached servers: what it writes, the backend reads, and the other way round.
 */
@Tag("servers")
class KetamaPlacementTest {
    private static final int KEYS = 600;
    private static MemcachedServers servers;
    /** Three more, on Unix domain sockets. */
    private static MemcachedServers onSockets;
    @TempDir
    static Path directory;

    @BeforeAll
    static void startServers() throws Exception {
        servers = MemcachedServers.start(3);
        onSockets = MemcachedServers.startOnUnixSockets(directory, 3);
    }

    @AfterAll
    static void stopServers() throws Exception {
        servers.close();
        onSockets.close();
    }

    @Test
    void weightedPoolPlacesKeysWhereTwemproxyDoes() throws Exception {
        List<String> twemproxy = List.of(
                "127.0.0.1:" + servers.port(0) + ":1",
                "127.0.0.1:" + servers.port(1) + ":2",
                "127.0.0.1:" + servers.port(2) + ":1");
        int[] held = samePlacement(servers, twemproxy, String.join(",", twemproxy), "weighted");
        // The weight-2 server holds about half of the keys; the test means something only if all three hold some.
        assertTrue(held[1] > held[0] && held[1] > held[2], "keys per server " + List.of(held[0], held[1], held[2]));
    }

    @Test
    void namedServersPlaceKeysByTheirNamesAsTwemproxyDoes() throws Exception {
        // With names, ketama hashes the names, not the addresses: the placement survives a server moving.
        List<String> named = List.of(
                "127.0.0.1:" + servers.port(0) + ":1 cache-a",
                "127.0.0.1:" + servers.port(1) + ":1 cache-b",
                "127.0.0.1:" + servers.port(2) + ":1 cache-c");
        samePlacement(servers, named, String.join(",", named), "named");
    }

    /** Servers on Unix sockets, listed by path as twemproxy lists them, weighted and unnamed. */
    @Test
    void serversOnSocketsPlaceKeysWhereTwemproxyDoes() throws Exception {
        String[] paths = onSockets.serverList().split(",");
        List<String> onPaths = List.of(paths[0] + ":1", paths[1] + ":2", paths[2] + ":1");
        samePlacement(onSockets, onPaths, String.join(",", onPaths), "sockets");
    }

    /** Writes through each of twemproxy and the backend, reads through the other; returns keys held per server. */
    private static int[] samePlacement(MemcachedServers pool, List<String> twemproxyServers, String backendServers,
                                       String prefix) throws Exception {
        int[] held = new int[3];
        try (Nutcracker nutcracker = Nutcracker.start(twemproxyServers);
                BackendUnderTest backend = new BackendUnderTest(new MemcachedBackendFactory(),
                        Map.of("servers", backendServers))) {
            MemcachedClient viaTwemproxy = new MemcachedClient(
                    List.of(new InetSocketAddress("127.0.0.1", nutcracker.port())));
            try {
                List<OperationFuture<Boolean>> writes = new ArrayList<>();
                for (int i = 0; i < KEYS; i++) {
                    writes.add(viaTwemproxy.set(prefix + "-from-twemproxy-" + i, 0, "t" + i));
                }
                for (OperationFuture<Boolean> write : writes) {
                    assertTrue(write.get(10, TimeUnit.SECONDS));
                }
                for (int i = 0; i < KEYS; i++) {
                    Result read = backend.run(new Operation.Get(Namespace.DEFAULT,
                            bytes(prefix + "-from-twemproxy-" + i)));
                    assertEquals("t" + i, valueText(read),
                            "key " + i + " written through twemproxy, read through the backend");
                }
                for (int i = 0; i < KEYS; i++) {
                    assertEquals(Status.OK, backend.run(new Operation.Store(Namespace.DEFAULT,
                            bytes(prefix + "-from-backend-" + i), StoreMode.SET, bytes("g" + i), 0, Item.NEVER, 0))
                            .status());
                }
                for (int i = 0; i < KEYS; i++) {
                    assertEquals("g" + i, viaTwemproxy.get(prefix + "-from-backend-" + i),
                            "key " + i + " written through the backend, read through twemproxy");
                }
            } finally {
                viaTwemproxy.shutdown(5, TimeUnit.SECONDS);
            }
            for (int server = 0; server < 3; server++) {
                held[server] = pool.holding(server, prefix + "-from-twemproxy-", KEYS);
            }
        }
        assertEquals(KEYS, held[0] + held[1] + held[2], "every key on exactly one server");
        for (int count : held) {
            assertTrue(count > KEYS / 10, "keys per server " + List.of(held[0], held[1], held[2]));
        }
        return held;
    }
}
