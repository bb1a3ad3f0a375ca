package kvgate.okuyama;

import java.util.Map;
import kvgate.testing.RedisServers;
import kvgate.testing.TestGateway;
import org.junit.jupiter.api.BeforeAll;

/**
 * The okuyama protocol suite on the Redis backend (a real standalone redis-server): tags and search kept in Redis
 * natively.
 */
class OkuyamaProtocolOnRedisTest extends OkuyamaProtocolSuite {
    @BeforeAll
    static void start() throws Exception {
        gateway = TestGateway.start(RedisServers.standalone(), Map.of());
    }
}
