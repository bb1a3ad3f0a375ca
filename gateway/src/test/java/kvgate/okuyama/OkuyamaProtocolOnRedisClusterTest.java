package kvgate.okuyama;

import kvgate.testing.RedisServers;
import kvgate.testing.TestGateway;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The okuyama protocol suite on the Redis backend (a real three-master Redis Cluster): tags and search kept in Redis
 * natively.
 */
class OkuyamaProtocolOnRedisClusterTest extends OkuyamaProtocolSuite {
    private static RedisServers servers;

    @BeforeAll
    static void start() throws Exception {
        servers = RedisServers.cluster(3);
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
