package kvgate.mpdb;

import kvgate.testing.RedisServers;
import kvgate.testing.TestGateway;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;

/**
 * The MPDB suite on the Redis backend (a real three-master Redis Cluster): GETBUCKET is the backend's own scan of its
 * index shards.
 */
@Tag("servers")
class MpdbProtocolOnRedisClusterTest extends MpdbProtocolSuite {
    @BeforeAll
    static void start() throws Exception {
        gateway = TestGateway.start(RedisServers.cluster(3), settings());
    }
}
