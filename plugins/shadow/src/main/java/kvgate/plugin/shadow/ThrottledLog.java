package kvgate.plugin.shadow;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;

/**
 * A warning written at most once per interval, however often it happens: a shadow that disagrees on every request
 * must not flood the log. Each line says how many were held back since the one before, so nothing is silent.
 */
final class ThrottledLog {
    private final Logger log;
    private final long intervalNanos;
    private final LongSupplier nanoClock;
    /** When the next line may be written, in {@code nanoClock} time. */
    private final AtomicLong nextAt;
    private final LongAdder heldBack = new LongAdder();

    ThrottledLog(Logger log, long interval, TimeUnit unit, LongSupplier nanoClock) {
        this.log = log;
        this.intervalNanos = unit.toNanos(interval);
        this.nanoClock = nanoClock;
        this.nextAt = new AtomicLong(nanoClock.getAsLong());
    }

    /**
     * Writes the line {@code message} builds, unless one was written within the interval; then only counts it.
     *
     * @return whether the line was written
     */
    boolean warn(Supplier<String> message) {
        long now = nanoClock.getAsLong();
        long next = nextAt.get();
        if (now - next < 0 || !nextAt.compareAndSet(next, now + intervalNanos)) {
            heldBack.increment();
            return false;
        }
        long held = heldBack.sumThenReset();
        log.warn(held == 0 ? message.get() : message.get() + " (and " + held + " more since the last such line)");
        return true;
    }
}
