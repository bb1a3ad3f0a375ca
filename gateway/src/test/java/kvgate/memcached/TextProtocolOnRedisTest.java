package kvgate.memcached;

import kvgate.testing.RedisServers;
import kvgate.testing.TestGateway;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;

/** The text protocol suite on the Redis backend, a real standalone redis-server. */
@Tag("servers")
class TextProtocolOnRedisTest extends TextProtocolSuite {
    @BeforeAll
    static void start() throws Exception {
        gateway = TestGateway.start(RedisServers.standalone(), SETTINGS);
        keepsLeases = true;
        takesChosenCas = true;
    }
}
