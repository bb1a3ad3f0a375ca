package kvgate.memcached.couchbase;

import kvgate.testing.RedisServers;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;

/** The Couchbase SDK suite on the Redis backend: a real three-master Redis Cluster, as stateless gateways use it. */
@Tag("servers")
class CouchbaseSdkOnRedisClusterTest extends CouchbaseSdkSuite {
    @BeforeAll
    static void start() throws Exception {
        start(RedisServers.cluster(3), true);
    }
}
