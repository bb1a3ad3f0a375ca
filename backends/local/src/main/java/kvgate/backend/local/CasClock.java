package kvgate.backend.local;

import java.time.Clock;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Hands out CAS values: unique and increasing, like Couchbase's hybrid logical clock. Each value is at least the
 * wall clock in milliseconds shifted left by 20 bits (room for a million mutations a millisecond), and always above
 * the previous one, so values stay unique across restarts even before the stored high-water mark is read, and a
 * clock stepping back cannot repeat one.
 */
final class CasClock {
    private static final int SHIFT = 20;

    private final Clock clock;
    private final AtomicLong last;

    CasClock(Clock clock, long highWater) {
        this.clock = clock;
        this.last = new AtomicLong(highWater);
    }

    long next() {
        long floor = clock.millis() << SHIFT;
        return last.updateAndGet(previous -> Math.max(previous + 1, floor));
    }

    /** The highest value handed out so far. */
    long highWater() {
        return last.get();
    }

    /**
     * A mark above every value handed out so far and every value the next {@code aheadMillis} of the clock will
     * give (at fewer than a million a millisecond): what is persisted, so that a restart never goes below a value
     * an item committed before the next save holds.
     */
    long markAhead(long aheadMillis) {
        return Math.max(last.get(), (clock.millis() + aheadMillis) << SHIFT);
    }
}
