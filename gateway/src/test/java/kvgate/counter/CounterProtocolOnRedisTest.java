package kvgate.counter;

import java.util.Map;
import kvgate.testing.RedisServers;
import kvgate.testing.TestGateway;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;

/** The counter protocol suite with the counters in Redis (counter.store = redis): a real standalone redis-server. */
@Tag("servers")
class CounterProtocolOnRedisTest extends CounterProtocolSuite {
    @BeforeAll
    static void start() throws Exception {
        gateway = TestGateway.start(RedisServers.standalone(), Map.of("counter.store", "redis"));
    }
}
