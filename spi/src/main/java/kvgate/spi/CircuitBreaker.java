package kvgate.spi;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Fail fast on a dead server: a backend keeps one per server (or per cluster node), shared by all its connections to
 * it, and asks it before sending. After {@code failureLimit} failures in a row (timeouts, lost or refused
 * connections: the server did not answer) it opens, and the backend answers the server's requests at once with a
 * temporary failure instead of letting each wait for its timeout. While it is open, the backend probes the server
 * with a request of its own (a no-op, a PING) every {@code retryMillis}, never a client's, so that no client waits
 * on a dead server; the probe's answer closes it. An answer of any kind, an error reply included, is a success: the
 * server is there.
 *
 * <p>One probe cycle at a time: the caller whose failure opens the breaker takes the cycle ({@link #startProbing}),
 * probes until an answer, and then calls {@link #probeEnded}. Failures are rare
 * and go through a lock; the success path, taken for every reply, reads two volatile fields and returns.
 */
public final class CircuitBreaker {
    private final int failureLimit;
    private final long retryMillis;
    private volatile int failuresInARow;
    private volatile boolean open;
    /** A probe cycle is under way: there is never more than one. Guarded by this. */
    private boolean probing;
    private final AtomicLong trips = new AtomicLong();

    /**
     * @param failureLimit failures in a row that open it, at least 1
     * @param retryMillis how often the server is probed while it is open
     */
    public CircuitBreaker(int failureLimit, long retryMillis) {
        if (failureLimit < 1) {
            throw new IllegalArgumentException("failure limit " + failureLimit + ": at least 1");
        }
        this.failureLimit = failureLimit;
        this.retryMillis = retryMillis;
    }

    /** Whether the server's requests are answered at once (from the failure that opens it until an answer). */
    public boolean isOpen() {
        return open;
    }

    public int failuresInARow() {
        return failuresInARow;
    }

    public int failureLimit() {
        return failureLimit;
    }

    /** How often the owner of the probe cycle probes. */
    public long retryMillis() {
        return retryMillis;
    }

    /** How many times it has opened since it was made. */
    public long trips() {
        return trips.get();
    }

    /**
     * Counts one failure in a row. Returns true when that opened the breaker: the caller may log the failure that did
     * it, and then asks {@link #startProbing} whether the probes are its to send.
     */
    public synchronized boolean failed() {
        failuresInARow++;
        if (failuresInARow >= failureLimit && !open) {
            open = true;
            trips.incrementAndGet();
            return true;
        }
        return false;
    }

    /**
     * Whether the caller, having opened the breaker, owns the probe cycle: true unless a cycle is under way already.
     * The owner probes every {@link #retryMillis} until an answer, then calls {@link #probeEnded}.
     */
    public synchronized boolean startProbing() {
        if (probing) {
            return false;
        }
        probing = true;
        return true;
    }

    /**
     * The server answered: the failures in a row end, and so does the breaker's being open. Returns true when it was
     * open (the caller may log the server's return).
     */
    public boolean answered() {
        if (failuresInARow == 0 && !open) {
            return false;
        }
        synchronized (this) {
            failuresInARow = 0;
            if (open) {
                open = false;
                return true;
            }
            return false;
        }
    }

    /**
     * The owner of the probe cycle is done: its probe was answered, or there is nothing more to probe. Returns true,
     * and the cycle goes on, when the breaker opened again meanwhile: that opening found the cycle still running and
     * started none of its own, so ending it now would leave the breaker open with nobody probing.
     */
    public synchronized boolean probeEnded() {
        if (open) {
            return true;
        }
        probing = false;
        return false;
    }
}
