package kvgate.memcached;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.nio.file.Path;
import java.util.Map;
import kvgate.testing.BinaryClient;
import kvgate.testing.MemcachedServers;
import kvgate.testing.TestGateway;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The memcached protocol suite on the memcached backend over Unix domain sockets: a pool of two real memcached
 * servers started with -s, which then listen on no port at all.
 */
@Tag("servers")
class MemcachedProtocolOnMemcachedUnixSocketTest extends MemcachedProtocolSuite {
    @TempDir
    static Path directory;
    /** The pool, owned by the gateway (which closes it); the tests ask its servers directly too. */
    private static MemcachedServers pool;

    @BeforeAll
    static void start() throws Exception {
        pool = MemcachedServers.startOnUnixSockets(directory, 2);
        gateway = TestGateway.start(pool, Map.of());
    }

    /** Both sockets take keys: ketama spreads them by the servers' names, which are their paths. */
    @Test
    void keysAreSpreadOverBothSockets() throws Exception {
        try (BinaryClient client = new BinaryClient(gateway.port())) {
            ByteArrayOutputStream burst = new ByteArrayOutputStream();
            for (int i = 0; i < 100; i++) {
                burst.write(BinaryClient.frame(BinaryClient.SETQ, BinaryClient.storeExtras(0, 0),
                        BinaryClient.bytes("spread-" + i), BinaryClient.bytes("v"), 0, i));
            }
            client.send(burst.toByteArray());
            assertEquals(0, client.call(BinaryClient.NOOP, new byte[0], new byte[0], new byte[0], 0).status());
        }
        int first = pool.holding(0, "spread-", 100);
        int second = pool.holding(1, "spread-", 100);
        assertEquals(100, first + second, "each key on one of the servers");
        assertTrue(first > 10 && second > 10, "keys on each socket's server: " + first + ", " + second);
    }

    /** A pool may mix a server on a socket with one on a TCP port: keys go to both, each read back. */
    @Test
    void aPoolMixesASocketServerWithATcpOne(@TempDir Path mixed) throws Exception {
        try (MemcachedServers onPort = MemcachedServers.start(1);
             MemcachedServers onSocket = MemcachedServers.startOnUnixSockets(mixed, 1);
             TestGateway both = TestGateway.start(Map.of("backend", "memcached", "memcached.servers",
                     onPort.serverList() + "," + onSocket.serverList()));
             BinaryClient client = new BinaryClient(both.port())) {
            for (int i = 0; i < 100; i++) {
                assertEquals(0, client.set("mixed-" + i, "v" + i, 0, 0).status());
            }
            for (int i = 0; i < 100; i++) {
                assertEquals("v" + i, client.get("mixed-" + i).valueText());
            }
            int viaPort = onPort.holding(0, "mixed-", 100);
            int viaSocket = onSocket.holding(0, "mixed-", 100);
            assertEquals(100, viaPort + viaSocket, "each key on one of the two");
            assertTrue(viaPort > 10 && viaSocket > 10, "keys on the port's server and the socket's: " + viaPort
                    + ", " + viaSocket);
        }
    }
}
