package kvgate.memcached;

import kvgate.testing.MemcachedServers;
import kvgate.testing.TestGateway;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The memcached protocol suite on the memcached backend: a pool of two real memcached servers. */
class MemcachedProtocolOnMemcachedTest extends MemcachedProtocolSuite {
    private static MemcachedServers servers;

    @BeforeAll
    static void start() throws Exception {
        servers = MemcachedServers.start(2);
        gateway = TestGateway.start(servers.backendSettings());
    }

    @AfterAll
    static void stopServers() throws Exception {
        if (servers != null) {
            servers.close();
        }
    }
}
