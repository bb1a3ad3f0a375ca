package kvgate.mpdb;

import java.util.HashMap;
import java.util.Map;
import kvgate.testing.RedisServers;
import kvgate.testing.TestGateway;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The MPDB suite on the Redis backend (a real standalone redis-server): GETBUCKET is the backend's own scan of its
 * index shards.
 */
class MpdbProtocolOnRedisTest extends MpdbProtocolSuite {
    private static RedisServers servers;

    @BeforeAll
    static void start() throws Exception {
        servers = RedisServers.standalone();
        Map<String, String> settings = new HashMap<>(servers.backendSettings());
        settings.putAll(settings());
        gateway = TestGateway.start(settings);
    }

    @AfterAll
    static void stopServers() throws Exception {
        stopGateway();
        if (servers != null) {
            servers.close();
        }
    }
}
