package kvgate.mpdb;

import kvgate.testing.TestGateway;
import org.junit.jupiter.api.BeforeAll;

/** The MPDB suite on the embedded local store, which scans namespaces natively. */
class MpdbProtocolOnLocalStoreTest extends MpdbProtocolSuite {
    @BeforeAll
    static void start() throws Exception {
        gateway = TestGateway.start(settings());
    }
}
