package kvgate.okuyama;

import kvgate.testing.RedisServers;
import kvgate.testing.TestGateway;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The okuyama protocol suite on the Redis backend (a real standalone redis-server): tags and search kept in Redis
 * natively.
 */
class OkuyamaProtocolOnRedisTest extends OkuyamaProtocolSuite {
    private static RedisServers servers;

    @BeforeAll
    static void start() throws Exception {
        servers = RedisServers.standalone();
        gateway = TestGateway.start(servers.backendSettings());
    }

    @AfterAll
    static void stopServers() throws Exception {
        stopGateway();
        if (servers != null) {
            servers.close();
        }
    }
}
