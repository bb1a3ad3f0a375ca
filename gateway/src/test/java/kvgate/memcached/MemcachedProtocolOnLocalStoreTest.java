package kvgate.memcached;

import kvgate.testing.TestGateway;
import org.junit.jupiter.api.BeforeAll;

/** The memcached protocol suite on the embedded local store. */
class MemcachedProtocolOnLocalStoreTest extends MemcachedProtocolSuite {
    @BeforeAll
    static void start() throws Exception {
        gateway = TestGateway.start();
    }
}
