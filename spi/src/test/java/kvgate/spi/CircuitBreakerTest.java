package kvgate.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The breaker's states on a clock the test moves. */
class CircuitBreakerTest {
    private final AtomicLong now = new AtomicLong(1_000);
    private final CircuitBreaker breaker = new CircuitBreaker(3, 100, now::get);

    private void advanceMillis(long millis) {
        now.addAndGet(TimeUnit.MILLISECONDS.toNanos(millis));
    }

    @Test
    void opensAfterTheLimitOfFailuresInARowOnly() {
        assertFalse(breaker.failed());
        assertFalse(breaker.failed());
        assertFalse(breaker.answered(), "an answer between failures only resets the count");
        assertFalse(breaker.failed());
        assertFalse(breaker.failed());
        assertTrue(breaker.allows());
        assertTrue(breaker.failed(), "the third failure in a row opens it");
        assertTrue(breaker.isOpen());
        assertFalse(breaker.allows());
        assertEquals(1, breaker.trips());
    }

    @Test
    void letsOneProbeThroughEachRetryAndClosesOnItsAnswer() {
        for (int i = 0; i < 3; i++) {
            breaker.failed();
        }
        advanceMillis(99);
        assertFalse(breaker.allows(), "no probe before the retry interval");
        advanceMillis(1);
        assertTrue(breaker.allows(), "the probe");
        assertFalse(breaker.allows(), "one probe at a time");
        assertFalse(breaker.failed(), "a failed probe keeps it open");
        assertTrue(breaker.isOpen());
        advanceMillis(50);
        assertFalse(breaker.allows(), "the next probe waits another interval");
        advanceMillis(50);
        assertTrue(breaker.allows());
        assertTrue(breaker.answered(), "the probe's answer closes it");
        assertFalse(breaker.isOpen());
        assertTrue(breaker.allows());
        assertTrue(breaker.allows());
        assertFalse(breaker.failed(), "the count starts again from nothing");
        assertEquals(1, breaker.trips());
    }

    @Test
    void refusesALimitBelowOne() {
        try {
            new CircuitBreaker(0, 100);
        } catch (IllegalArgumentException expected) {
            return;
        }
        throw new AssertionError("a limit of 0 was taken");
    }
}
