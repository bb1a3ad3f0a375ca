package kvgate.okuyama;

import kvgate.testing.TestGateway;
import org.junit.jupiter.api.BeforeAll;

/** The okuyama protocol suite on the local store. */
class OkuyamaProtocolOnLocalStoreTest extends OkuyamaProtocolSuite {

    @BeforeAll
    static void start() throws Exception {
        gateway = TestGateway.start();
    }
}
