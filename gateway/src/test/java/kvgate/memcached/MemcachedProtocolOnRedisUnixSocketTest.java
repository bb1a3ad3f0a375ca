package kvgate.memcached;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.Map;
import kvgate.testing.BinaryClient;
import kvgate.testing.RedisServers;
import kvgate.testing.TestGateway;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The memcached protocol suite on the Redis backend over a Unix domain socket ({@code redis-socket://}): a real
 * standalone redis-server that listens on a port too, which only the test's own checks use.
 */
@Tag("servers")
class MemcachedProtocolOnRedisUnixSocketTest extends MemcachedProtocolSuite {
    private static RedisServers redis;

    @BeforeAll
    static void start() throws Exception {
        redis = RedisServers.standaloneOnUnixSocket();
        gateway = TestGateway.start(redis, Map.of());
    }

    /** Every connection the gateway keeps to Redis is on the socket, none on the port, and the data is there. */
    @Test
    void theGatewaysConnectionsAreOnTheSocket() throws Exception {
        try (BinaryClient client = new BinaryClient(gateway.port())) {
            assertEquals(0, client.call(BinaryClient.SET, BinaryClient.storeExtras(0, 0),
                    BinaryClient.bytes("over-the-socket"), BinaryClient.bytes("v"), 0).status());
        }
        String clients = RedisServers.cli(redis.port(0), "CLIENT", "LIST");
        long onSocket = Arrays.stream(clients.split("\n"))
                .filter(line -> line.contains(" addr=" + redis.socket() + ":")).count();
        long onPort = Arrays.stream(clients.split("\n"))
                .filter(line -> line.contains(" laddr=127.0.0.1:" + redis.port(0) + " ")).count();
        assertTrue(onSocket >= 2, "the gateway's connections on the socket (a shared one and a loop's): " + clients);
        assertEquals(1, onPort, "only redis-cli's own connection on the port: " + clients);
        assertTrue(Long.parseLong(RedisServers.cli(redis.port(0), "DBSIZE").strip()) >= 1,
                "the item is in the server the socket leads to");
    }
}
