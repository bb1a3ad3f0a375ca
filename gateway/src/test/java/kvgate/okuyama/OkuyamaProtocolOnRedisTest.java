package kvgate.okuyama;

import java.util.Map;
import kvgate.testing.RedisServers;
import kvgate.testing.TestGateway;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;

/**
 * The okuyama protocol suite on the Redis backend (a real standalone redis-server): tags and search kept in Redis
 * natively.
 */
@Tag("servers")
class OkuyamaProtocolOnRedisTest extends OkuyamaProtocolSuite {
    @BeforeAll
    static void start() throws Exception {
        gateway = TestGateway.start(RedisServers.standalone(), Map.of());
    }
}
