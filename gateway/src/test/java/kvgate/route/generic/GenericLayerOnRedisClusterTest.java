package kvgate.route.generic;

import java.util.Map;
import kvgate.testing.RedisServers;
import kvgate.testing.TestGateway;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;

/**
 * The generic layer suite on the Redis backend (a real three-master Redis Cluster), shared by two gateways: the
 * backend scans, tags and searches natively, so the suite checks those against the same expectations as the
 * generic layer's.
 */
@Tag("servers")
class GenericLayerOnRedisClusterTest extends GenericLayerSuite {
    @BeforeAll
    static void start() throws Exception {
        RedisServers servers = RedisServers.cluster(3);
        gateway = TestGateway.start(servers, Map.of());
        second = TestGateway.start(servers.backendSettings()); // the first gateway owns the servers
    }
}
