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
