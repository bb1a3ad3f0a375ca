package kvgate.okuyama;

import java.util.Map;
import kvgate.testing.OkuyamaCluster;
import kvgate.testing.TestGateway;
import org.junit.jupiter.api.BeforeAll;

/**
 * The okuyama protocol suite on the okuyama backend, in front of an okuyama-protocol server: okuyama clients reach an
 * okuyama cluster through the gateway unchanged. Tags and search come from the generic layer.
 */
class OkuyamaProtocolOnOkuyamaTest extends OkuyamaProtocolSuite {
    @BeforeAll
    static void start() throws Exception {
        gateway = TestGateway.start(OkuyamaCluster.start(), Map.of());
    }
}
