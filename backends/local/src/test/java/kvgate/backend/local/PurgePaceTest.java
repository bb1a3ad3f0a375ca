package kvgate.backend.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The purge's pace, on a clock the test moves: no real time passes. */
class PurgePaceTest {
    private long now = 1_000;
    private final List<Long> sleeps = new ArrayList<>();

    private PurgePace pace(boolean[] stop, boolean sleepSucceeds) {
        return new PurgePace(() -> stop[0], () -> now, nanos -> {
            sleeps.add(nanos);
            now += nanos;
            return sleepSucceeds;
        });
    }

    @Test
    void noSleepBeforeASliceOfWork() {
        PurgePace pace = pace(new boolean[1], true);
        now += PurgePace.SLICE_NANOS - 1;
        assertFalse(pace.getAsBoolean());
        assertEquals(List.of(), sleeps);
    }

    @Test
    void afterASliceItSleepsSoThatThePurgeKeepsToItsShare() {
        PurgePace pace = pace(new boolean[1], true);
        now += 2_000_000;
        assertFalse(pace.getAsBoolean());
        assertEquals(1, sleeps.size());
        // 2 ms of work at a tenth of a core: 18 ms of sleep, 20 ms in all.
        assertEquals(18_000_000, sleeps.get(0), 1);
        // The next slice counts from the end of the sleep.
        now += PurgePace.SLICE_NANOS / 2;
        assertFalse(pace.getAsBoolean());
        assertEquals(1, sleeps.size());
        now += PurgePace.SLICE_NANOS;
        assertFalse(pace.getAsBoolean());
        assertEquals(2, sleeps.size());
        assertEquals(PurgePace.SLICE_NANOS * 3 / 2 * 9, sleeps.get(1), 1);
    }

    @Test
    void itSaysStopWhenTheStoreCloses() {
        boolean[] stop = {false};
        PurgePace pace = pace(stop, true);
        assertFalse(pace.getAsBoolean());
        stop[0] = true;
        assertTrue(pace.getAsBoolean());
    }

    @Test
    void anInterruptedSleepStopsThePurgeForGood() {
        PurgePace pace = pace(new boolean[1], false);
        now += PurgePace.SLICE_NANOS;
        assertTrue(pace.getAsBoolean());
        assertTrue(pace.getAsBoolean(), "stays stopped");
        assertEquals(1, sleeps.size());
    }
}
