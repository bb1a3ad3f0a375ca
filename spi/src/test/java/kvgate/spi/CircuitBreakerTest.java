package kvgate.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The breaker's states, and the one probe cycle its openings start. */
class CircuitBreakerTest {
    private final CircuitBreaker breaker = new CircuitBreaker(3, 100);

    @Test
    void opensAfterTheLimitOfFailuresInARowOnly() {
        assertFalse(breaker.failed());
        assertFalse(breaker.failed());
        assertFalse(breaker.answered(), "an answer between failures only resets the count");
        assertEquals(0, breaker.failuresInARow());
        assertFalse(breaker.failed());
        assertFalse(breaker.failed());
        assertFalse(breaker.isOpen());
        assertTrue(breaker.failed(), "the third failure in a row opens it");
        assertTrue(breaker.isOpen());
        assertTrue(breaker.startProbing(), "its caller owns the probes");
        assertFalse(breaker.failed(), "failures while open open nothing");
        assertFalse(breaker.startProbing(), "one probe cycle at a time");
        assertEquals(1, breaker.trips());
    }

    @Test
    void anAnswerClosesItAndTheCycleEnds() {
        for (int i = 0; i < 3; i++) {
            breaker.failed();
        }
        assertTrue(breaker.startProbing());
        assertTrue(breaker.answered(), "the probe's answer closes it");
        assertFalse(breaker.isOpen());
        assertFalse(breaker.probeEnded(), "nothing more to probe");
        assertFalse(breaker.answered(), "already closed");
        assertFalse(breaker.failed(), "the count starts again from nothing");
        assertFalse(breaker.failed());
        assertTrue(breaker.failed());
        assertTrue(breaker.startProbing(), "a new opening starts a new cycle");
        assertEquals(2, breaker.trips());
    }

    @Test
    void anOpeningWhileTheCycleEndsKeepsTheCycleGoing() {
        for (int i = 0; i < 3; i++) {
            breaker.failed();
        }
        assertTrue(breaker.startProbing());
        breaker.answered(); // the probe answered...
        breaker.failed();
        breaker.failed();
        assertTrue(breaker.failed(), "...and it opened again before the owner ended its cycle");
        assertFalse(breaker.startProbing(), "no second owner");
        assertTrue(breaker.isOpen());
        assertTrue(breaker.probeEnded(), "the owner goes on probing");
    }

    @Test
    void refusesALimitBelowOne() {
        assertThrows(IllegalArgumentException.class, () -> new CircuitBreaker(0, 100));
    }
}
