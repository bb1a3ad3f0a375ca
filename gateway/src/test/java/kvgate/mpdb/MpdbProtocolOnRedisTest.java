package kvgate.mpdb;

import kvgate.testing.RedisServers;
import kvgate.testing.TestGateway;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;

/**
 * The MPDB suite on the Redis backend (a real standalone redis-server): GETBUCKET is the backend's own scan of its
 * index shards.
 */
@Tag("servers")
class MpdbProtocolOnRedisTest extends MpdbProtocolSuite {
    @BeforeAll
    static void start() throws Exception {
        gateway = TestGateway.start(RedisServers.standalone(), settings());
    }
}
