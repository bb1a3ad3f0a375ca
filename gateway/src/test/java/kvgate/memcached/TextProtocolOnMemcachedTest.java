package kvgate.memcached;

import kvgate.testing.MemcachedServers;
import kvgate.testing.TestGateway;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;

/** The text protocol suite on the memcached backend, a pool of two real memcached servers. */
@Tag("servers")
class TextProtocolOnMemcachedTest extends TextProtocolSuite {
    @BeforeAll
    static void start() throws Exception {
        gateway = TestGateway.start(MemcachedServers.start(2), SETTINGS);
        readsTellExpiry = false;
    }
}
