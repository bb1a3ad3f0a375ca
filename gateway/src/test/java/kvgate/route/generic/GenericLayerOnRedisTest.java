package kvgate.route.generic;

import java.util.Map;
import kvgate.testing.RedisServers;
import kvgate.testing.TestGateway;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;

/**
 * The generic layer suite on the Redis backend (a real standalone redis-server), shared by two gateways: the backend
 * scans, tags and searches natively, so the suite checks those against the same expectations as the generic layer's.
 */
@Tag("servers")
class GenericLayerOnRedisTest extends GenericLayerSuite {
    @BeforeAll
    static void start() throws Exception {
        RedisServers servers = RedisServers.standalone();
        gateway = TestGateway.start(servers, Map.of());
        second = TestGateway.start(servers.backendSettings()); // the first gateway owns the servers
    }
}
