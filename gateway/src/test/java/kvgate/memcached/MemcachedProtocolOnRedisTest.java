package kvgate.memcached;

import java.util.Map;
import kvgate.testing.RedisServers;
import kvgate.testing.TestGateway;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;

/** The memcached protocol suite on the Redis backend: a real standalone redis-server. */
@Tag("servers")
class MemcachedProtocolOnRedisTest extends MemcachedProtocolSuite {
    @BeforeAll
    static void start() throws Exception {
        gateway = TestGateway.start(RedisServers.standalone(), Map.of());
    }
}
