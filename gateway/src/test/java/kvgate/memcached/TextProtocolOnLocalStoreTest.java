package kvgate.memcached;

import kvgate.testing.TestGateway;
import org.junit.jupiter.api.BeforeAll;

/** The text protocol suite on the local store. */
class TextProtocolOnLocalStoreTest extends TextProtocolSuite {
    @BeforeAll
    static void start() throws Exception {
        gateway = TestGateway.start(SETTINGS);
        keepsLeases = true;
        takesChosenCas = true;
    }
}
