package kvgate.dispatch;

import java.util.Map;
import kvgate.testing.RedisServers;
import kvgate.testing.TestGateway;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The generic layer suite on the Redis backend (a real standalone redis-server), shared by two gateways: the backend
 * scans, tags and
 * searches natively, so the suite checks those against the same expectations as the generic layer's.
 */
class GenericLayerOnRedisTest extends GenericLayerSuite {
    private static RedisServers servers;

    @BeforeAll
    static void start() throws Exception {
        servers = RedisServers.standalone();
        Map<String, String> settings = servers.backendSettings();
        gateway = TestGateway.start(settings);
        second = TestGateway.start(settings);
    }

    @AfterAll
    static void stopServers() throws Exception {
        stopGateways();
        if (servers != null) {
            servers.close();
        }
    }
}
