package kvgate.okuyama;

import kvgate.testing.MemcachedServers;
import kvgate.testing.TestGateway;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The okuyama protocol suite on two real memcached servers: tags and search come from the generic layer. */
class OkuyamaProtocolOnMemcachedTest extends OkuyamaProtocolSuite {
    private static MemcachedServers servers;

    @BeforeAll
    static void start() throws Exception {
        servers = MemcachedServers.start(2);
        gateway = TestGateway.start(servers.backendSettings());
    }

    @AfterAll
    static void stopServers() throws Exception {
        stopGateway();
        if (servers != null) {
            servers.close();
        }
    }
}
