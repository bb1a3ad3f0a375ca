package kvgate.spi;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * Fail fast on a dead server: a backend keeps one per server (or per cluster node) and asks it before sending. After
 * {@code failureLimit} failures in a row (timeouts, lost or refused connections: the server did not answer) it
 * opens, and requests are refused at once, answered with a temporary failure by the backend, instead of each waiting
 * for its timeout. Every {@code retry} one request is let through as a probe; its answer closes the breaker, its
 * failure keeps it open for another {@code retry}. An answer of any kind, an error reply included, is a success: the
 * server is there.
 *
 * <p>Safe to share between threads; the path of a request to a healthy server reads two volatile fields.
 */
public final class CircuitBreaker {
    private final int failureLimit;
    private final long retryNanos;
    private final LongSupplier nanos;
    private volatile int failuresInARow;
    /** When the next probe may go ({@link #nanos}' clock), while open. */
    private volatile long probeAt;
    private volatile boolean open;
    private final AtomicBoolean probing = new AtomicBoolean();
    private final AtomicLong trips = new AtomicLong();

    public CircuitBreaker(int failureLimit, long retryMillis) {
        this(failureLimit, retryMillis, System::nanoTime);
    }

    /** As above, on the clock {@code nanos} (for tests). */
    public CircuitBreaker(int failureLimit, long retryMillis, LongSupplier nanos) {
        if (failureLimit < 1) {
            throw new IllegalArgumentException("failure limit " + failureLimit);
        }
        this.failureLimit = failureLimit;
        this.retryNanos = TimeUnit.MILLISECONDS.toNanos(retryMillis);
        this.nanos = nanos;
    }

    /**
     * Whether a request may be sent: always while closed; while open, only when a probe is due and none is under
     * way, and then this request is the probe, whose outcome the caller must report.
     */
    public boolean allows() {
        if (!open) {
            return true;
        }
        return nanos.getAsLong() - probeAt >= 0 && probing.compareAndSet(false, true);
    }

    /** The server answered. Returns true when that closed the breaker (the caller may log the server's return). */
    public boolean answered() {
        if (failuresInARow == 0 && !open) {
            return false;
        }
        synchronized (this) {
            failuresInARow = 0;
            probing.set(false);
            if (open) {
                open = false;
                return true;
            }
            return false;
        }
    }

    /**
     * The server did not answer. Returns true when that opened the breaker (the caller may log the failure that did
     * it); a failed probe keeps it open for another retry interval.
     */
    public synchronized boolean failed() {
        failuresInARow++;
        if (open) {
            probeAt = nanos.getAsLong() + retryNanos;
            probing.set(false);
            return false;
        }
        if (failuresInARow >= failureLimit) {
            probeAt = nanos.getAsLong() + retryNanos;
            open = true;
            trips.incrementAndGet();
            return true;
        }
        return false;
    }

    /** Whether requests are refused now (but for probes). */
    public boolean isOpen() {
        return open;
    }

    /** How many times it has opened since it was made. */
    public long trips() {
        return trips.get();
    }
}
