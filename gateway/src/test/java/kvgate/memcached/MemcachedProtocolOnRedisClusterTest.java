package kvgate.memcached;

import java.util.Map;
import kvgate.testing.RedisServers;
import kvgate.testing.TestGateway;
import org.junit.jupiter.api.BeforeAll;

/** The memcached protocol suite on the Redis backend: a real three-master Redis Cluster. */
class MemcachedProtocolOnRedisClusterTest extends MemcachedProtocolSuite {
    @BeforeAll
    static void start() throws Exception {
        gateway = TestGateway.start(RedisServers.cluster(3), Map.of());
    }
}
