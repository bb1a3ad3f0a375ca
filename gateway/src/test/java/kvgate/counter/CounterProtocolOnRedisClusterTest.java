package kvgate.counter;

import java.util.HashMap;
import java.util.Map;
import kvgate.testing.RedisServers;
import kvgate.testing.TestGateway;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The counter protocol suite with the counters in Redis (counter.store = redis): a real three-master Redis Cluster. */
class CounterProtocolOnRedisClusterTest extends CounterProtocolSuite {
    private static RedisServers servers;

    @BeforeAll
    static void start() throws Exception {
        servers = RedisServers.cluster(3);
        Map<String, String> settings = new HashMap<>(servers.backendSettings());
        settings.put("counter.store", "redis");
        gateway = TestGateway.start(settings);
    }

    @AfterAll
    static void stopServers() throws Exception {
        if (servers != null) {
            servers.close();
        }
    }
}
