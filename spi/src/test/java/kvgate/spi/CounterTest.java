package kvgate.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** The counter rules every store applies: growth within the maximum, the interval's maximum, and idleness. */
class CounterTest {
    private static final long INTERVAL = 100;

    @Test
    void aNewCounterHoldsWhatWasAskedWhateverTheMaximum() {
        Counter created = Counter.acquired(null, 7, 5, 1_000, INTERVAL);
        assertEquals(new Counter(7, 7, 1_000), created);
    }

    @Test
    void anAcquisitionPastTheMaximumIsRefusedAndOneUpToItGranted() {
        Counter counter = new Counter(3, 3, 1_000);
        assertNull(Counter.acquired(counter, 3, 5, 1_001, INTERVAL));
        assertEquals(new Counter(5, 5, 1_001), Counter.acquired(counter, 2, 5, 1_001, INTERVAL));
    }

    @Test
    void theIntervalsMaximumIsItsHighestConsumptionAndRestartsWithTheNextInterval() {
        Counter counter = Counter.acquired(null, 4, 10, 1_010, INTERVAL);
        counter = counter.released(3, 1_020, INTERVAL);
        assertEquals(1, counter.consumption());
        assertEquals(4, counter.reportedMax(1_050, INTERVAL), "the highest within the interval");
        assertEquals(1, counter.reportedMax(1_150, INTERVAL), "unchanged in the next interval: what it holds");
        // The first change of the next interval starts from what the interval began with.
        Counter next = counter.released(1, 1_150, INTERVAL);
        assertEquals(new Counter(0, 1, 1_150), next);
        assertEquals(3, Counter.acquired(next, 3, 10, 1_160, INTERVAL).reportedMax(1_160, INTERVAL));
    }

    @Test
    void aReleaseNeverTakesTheConsumptionBelowZero() {
        assertEquals(0, new Counter(2, 2, 1_000).released(5, 1_001, INTERVAL).consumption());
    }

    @Test
    void onlyACounterAtZeroUnchangedInTheIntervalIsIdle() {
        assertFalse(new Counter(0, 3, 1_050).idle(1_060, INTERVAL), "changed in this interval");
        assertTrue(new Counter(0, 3, 1_050).idle(1_100, INTERVAL));
        assertFalse(new Counter(1, 1, 1_050).idle(1_500, INTERVAL), "someone holds some");
    }

    @Test
    void theLedgerGivesBackOnlyWhatAnOwnerHolds() {
        CounterLedger<String> ledger = new CounterLedger<>();
        assertFalse(ledger.holds("a", "n", 0), "holding none is not even 0");
        ledger.acquired("a", "n", 2);
        ledger.acquired("a", "n", 3);
        assertTrue(ledger.holds("a", "n", 5));
        assertFalse(ledger.holds("a", "n", 6));
        assertFalse(ledger.holds("b", "n", 1), "another owner holds none of it");
        ledger.released("a", "n", 5);
        assertFalse(ledger.holds("a", "n", 0), "a holding brought to 0 is forgotten");
        ledger.acquired("a", "m", 1);
        ledger.acquired("a", "n", 4);
        assertEquals(Map.of("m", 1L, "n", 4L), ledger.releaseAll("a"));
        assertEquals(Map.of(), ledger.releaseAll("a"), "all given back already");
    }
}
