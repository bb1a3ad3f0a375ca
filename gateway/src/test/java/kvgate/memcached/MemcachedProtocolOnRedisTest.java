package kvgate.memcached;

import kvgate.testing.RedisServers;
import kvgate.testing.TestGateway;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The memcached protocol suite on the Redis backend: a real standalone redis-server. */
class MemcachedProtocolOnRedisTest extends MemcachedProtocolSuite {
    private static RedisServers servers;

    @BeforeAll
    static void start() throws Exception {
        servers = RedisServers.standalone();
        gateway = TestGateway.start(servers.backendSettings());
    }

    @AfterAll
    static void stopServers() throws Exception {
        if (servers != null) {
            servers.close();
        }
    }
}
