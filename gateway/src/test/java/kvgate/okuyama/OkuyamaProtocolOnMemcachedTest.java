package kvgate.okuyama;

import java.util.Map;
import kvgate.testing.MemcachedServers;
import kvgate.testing.TestGateway;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;

/** The okuyama protocol suite on two real memcached servers: tags and search come from the generic layer. */
@Tag("servers")
class OkuyamaProtocolOnMemcachedTest extends OkuyamaProtocolSuite {
    @BeforeAll
    static void start() throws Exception {
        gateway = TestGateway.start(MemcachedServers.start(2), Map.of());
    }
}
