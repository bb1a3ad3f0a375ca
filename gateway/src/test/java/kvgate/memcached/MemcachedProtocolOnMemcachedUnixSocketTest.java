package kvgate.memcached;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import kvgate.testing.BinaryClient;
import kvgate.testing.MemcachedServers;
import kvgate.testing.TestGateway;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The memcached protocol suite on the memcached backend over Unix domain sockets: a pool of two real memcached
 * servers started with -s, which then listen on no port at all.
 */
class MemcachedProtocolOnMemcachedUnixSocketTest extends MemcachedProtocolSuite {
    @TempDir
    static Path directory;

    @BeforeAll
    static void start() throws Exception {
        gateway = TestGateway.start(MemcachedServers.startOnUnixSockets(directory, 2), Map.of());
    }

    /** Both sockets take keys: ketama spreads them by the servers' names, which are their paths. */
    @Test
    void keysAreSpreadOverBothSockets() throws Exception {
        StringBuilder keys = new StringBuilder();
        try (BinaryClient client = new BinaryClient(gateway.port())) {
            ByteArrayOutputStream burst = new ByteArrayOutputStream();
            for (int i = 0; i < 100; i++) {
                burst.write(BinaryClient.frame(BinaryClient.SETQ, BinaryClient.storeExtras(0, 0),
                        BinaryClient.bytes("spread-" + i), BinaryClient.bytes("v"), 0, i));
                keys.append(" spread-").append(i);
            }
            client.send(burst.toByteArray());
            assertEquals(0, client.call(BinaryClient.NOOP, new byte[0], new byte[0], new byte[0], 0).status());
        }
        long first = held(directory.resolve("memcached-0.sock"), keys);
        long second = held(directory.resolve("memcached-1.sock"), keys);
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
            int viaPort = 0;
            int viaSocket = 0;
            try (BinaryClient tcp = onPort.client(0); BinaryClient unix = onSocket.client(0)) {
                for (int i = 0; i < 100; i++) {
                    assertEquals("v" + i, client.get("mixed-" + i).valueText());
                    viaPort += tcp.get("mixed-" + i).status() == 0 ? 1 : 0;
                    viaSocket += unix.get("mixed-" + i).status() == 0 ? 1 : 0;
                }
            }
            assertEquals(100, viaPort + viaSocket, "each key on one of the two");
            assertTrue(viaPort > 10 && viaSocket > 10, "keys on the port's server and the socket's: " + viaPort
                    + ", " + viaSocket);
        }
    }

    /** How many of {@code keys} the memcached on {@code socket} holds, asked directly in its text protocol. */
    private static long held(Path socket, CharSequence keys) throws Exception {
        try (SocketChannel channel = SocketChannel.open(UnixDomainSocketAddress.of(socket))) {
            channel.write(ByteBuffer.wrap(("get" + keys + "\r\n").getBytes(StandardCharsets.US_ASCII)));
            StringBuilder reply = new StringBuilder();
            ByteBuffer buffer = ByteBuffer.allocate(8192);
            while (!reply.toString().endsWith("END\r\n")) {
                buffer.clear();
                if (channel.read(buffer) < 0) {
                    throw new AssertionError("memcached closed the connection: " + reply);
                }
                reply.append(new String(buffer.array(), 0, buffer.position(), StandardCharsets.US_ASCII));
            }
            return Arrays.stream(reply.toString().split("\r\n")).filter(line -> line.startsWith("VALUE ")).count();
        }
    }
}
