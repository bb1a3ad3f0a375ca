package kvgate.mpdb;

import kvgate.testing.MemcachedServers;
import kvgate.testing.TestGateway;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;

/** The MPDB suite on two real memcached servers: GETBUCKET comes from the generic layer's key directory. */
@Tag("servers")
class MpdbProtocolOnMemcachedTest extends MpdbProtocolSuite {
    @BeforeAll
    static void start() throws Exception {
        gateway = TestGateway.start(MemcachedServers.start(2), settings());
    }
}
