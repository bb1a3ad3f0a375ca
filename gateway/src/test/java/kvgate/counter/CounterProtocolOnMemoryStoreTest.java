package kvgate.counter;

import kvgate.testing.TestGateway;
import org.junit.jupiter.api.BeforeAll;

/** The counter protocol suite on the built-in memory counter store. */
class CounterProtocolOnMemoryStoreTest extends CounterProtocolSuite {
    @BeforeAll
    static void start() throws Exception {
        gateway = TestGateway.start();
    }
}
