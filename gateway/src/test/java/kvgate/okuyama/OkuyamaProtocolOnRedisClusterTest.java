package kvgate.okuyama;

import java.util.Map;
import kvgate.testing.RedisServers;
import kvgate.testing.TestGateway;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;

/**
 * The okuyama protocol suite on the Redis backend (a real three-master Redis Cluster): tags and search kept in Redis
 * natively.
 */
@Tag("servers")
class OkuyamaProtocolOnRedisClusterTest extends OkuyamaProtocolSuite {
    @BeforeAll
    static void start() throws Exception {
        gateway = TestGateway.start(RedisServers.cluster(3), Map.of());
    }
}
