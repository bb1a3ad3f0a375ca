package kvgate.memcached.couchbase;

import kvgate.testing.MemcachedServers;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;

/** The Couchbase SDK suite on the memcached backend: a pool of two real memcached servers. */
@Tag("servers")
class CouchbaseSdkOnMemcachedTest extends CouchbaseSdkSuite {
    @BeforeAll
    static void start() throws Exception {
        start(MemcachedServers.start(2), false);
    }
}
