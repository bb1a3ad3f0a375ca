package kvgate.mpdb;

import java.util.HashMap;
import java.util.Map;
import kvgate.testing.MemcachedServers;
import kvgate.testing.TestGateway;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The MPDB suite on two real memcached servers: GETBUCKET comes from the generic layer's key directory. */
class MpdbProtocolOnMemcachedTest extends MpdbProtocolSuite {
    private static MemcachedServers servers;

    @BeforeAll
    static void start() throws Exception {
        servers = MemcachedServers.start(2);
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
