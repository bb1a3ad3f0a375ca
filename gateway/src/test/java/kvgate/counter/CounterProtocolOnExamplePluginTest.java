package kvgate.counter;

import kvgate.testing.ExamplePlugin;
import kvgate.testing.TestGateway;
import org.junit.jupiter.api.BeforeAll;

/**
 * The counter protocol suite with the counters in the example third-party plugin ({@code counter.store = example}),
 * built outside the reactor: the example keeps the counter semantics every other store keeps.
 */
class CounterProtocolOnExamplePluginTest extends CounterProtocolSuite {
    @BeforeAll
    static void start() throws Exception {
        gateway = TestGateway.start(ExamplePlugin.settings());
    }
}
