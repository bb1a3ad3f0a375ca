package kvgate.memcached;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Map;
import kvgate.testing.RedisServers;
import kvgate.testing.TestGateway;
import kvgate.testing.TextClient;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** Leases on the Redis backend, a real standalone redis-server, where every gateway in front of it shares them. */
@Tag("servers")
class MetaLeasesOnRedisTest extends MetaLeasesSuite {
    private RedisServers redis;

    @Override
    TestGateway start() throws Exception {
        redis = RedisServers.standalone();
        return TestGateway.start(redis, Map.of());
    }

    @Test
    void gatewaysInFrontOfOneRedisHandALeaseToOneClientOfAll() throws Exception {
        try (TestGateway second = TestGateway.start(redis.backendSettings());
             TextClient here = new TextClient(gateway.port());
             TextClient there = new TextClient(second.port())) {
            assertEquals("VA 0 W\r\n\r\n", here.call("mg fleet v N30\r\n"));
            assertEquals("VA 0 Z\r\n\r\n", there.call("mg fleet v N30\r\n"), "the other gateway's client is told");
            assertEquals("HD\r\n", there.call("ms fleet 5\r\nfresh\r\n"));
            assertEquals("HD\r\n", there.call("md fleet I\r\n"));
            assertEquals("VA 5 X W\r\nfresh\r\n", here.call("mg fleet v\r\n"));
            assertEquals("VA 5 Z X\r\nfresh\r\n", there.call("mg fleet v\r\n"));
        }
    }
}
