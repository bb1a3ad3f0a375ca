package kvgate.spi;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** One server's ejection and its probe cycle, without sockets. */
class ServerHealthTest {
    private final ServerHealth health = new ServerHealth("memcached server 127.0.0.1:11211", 1, 1000);

    @Test
    void anEjectionWhileTheProbeCycleEndsKeepsTheCycleGoing() {
        assertTrue(health.failed("timeout"), "ejected: the caller owns the probe cycle");
        health.answered(); // the probe's answer: back
        assertFalse(health.failed("timeout"), "ejected again before the cycle ended: no second cycle");
        assertTrue(health.ejected());
        assertTrue(health.probeEnded(), "so the cycle goes on, or nobody would probe the server");
        health.answered();
        assertFalse(health.ejected());
        assertFalse(health.probeEnded(), "back: the cycle ends");
        assertTrue(health.failed("timeout"), "and the next ejection starts a new one");
    }
}
