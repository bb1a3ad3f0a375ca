package kvgate.counter;

import static kvgate.testing.CounterClient.ACQUIRE;
import static kvgate.testing.CounterClient.STATS;
import static kvgate.testing.CounterClient.acquireBody;
import static kvgate.testing.CounterClient.frame;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Map;
import kvgate.testing.CounterClient;
import kvgate.testing.TestGateway;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The counter protocol suite on the built-in memory counter store. */
class CounterProtocolOnMemoryStoreTest extends CounterProtocolSuite {
    @BeforeAll
    static void start() throws Exception {
        gateway = TestGateway.start();
    }

    /** As in the reference server, which keeps its counters in memory too and runs a connection's commands in order. */
    @Test
    void statsPipelinedAfterAnAcquireCountsIt() throws Exception {
        try (CounterClient c = client()) {
            Map<String, String> before = stats(c);
            c.send(frame(ACQUIRE, 1, acquireBody(1, 5, "stats-pipelined")), frame(STATS, 2, new byte[0]));
            assertEquals(0, c.read().status());
            Map<String, String> after = statsOf(c.read());
            assertEquals(1, delta(before, after, "command:acquire"));
            assertEquals(1, delta(before, after, "objects"));
        }
    }
}
