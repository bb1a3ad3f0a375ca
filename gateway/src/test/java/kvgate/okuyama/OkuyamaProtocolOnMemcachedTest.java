package kvgate.okuyama;

import java.util.Map;
import kvgate.testing.MemcachedServers;
import kvgate.testing.TestGateway;
import org.junit.jupiter.api.BeforeAll;

/** The okuyama protocol suite on two real memcached servers: tags and search come from the generic layer. */
class OkuyamaProtocolOnMemcachedTest extends OkuyamaProtocolSuite {
    @BeforeAll
    static void start() throws Exception {
        gateway = TestGateway.start(MemcachedServers.start(2), Map.of());
    }
}
