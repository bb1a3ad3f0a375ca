package kvgate.route.generic;

import kvgate.testing.TestGateway;
import org.junit.jupiter.api.BeforeAll;

/** The generic layer suite on the local store, which scans natively and keeps tags and the index generically. */
class GenericLayerOnLocalStoreTest extends GenericLayerSuite {

    @BeforeAll
    static void start() throws Exception {
        gateway = TestGateway.start();
    }
}
