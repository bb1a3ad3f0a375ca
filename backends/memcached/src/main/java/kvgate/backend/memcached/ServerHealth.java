package kvgate.backend.memcached;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One memcached server's health, shared by its connections on every event loop: failures in a row, ejection, and
 * the one probe that may be under way. Shared because ejection is a fact about the server: once it is ejected,
 * requests on every loop must fail at once, not each loop's connection counting its own failures up to the limit
 * (each of those a client waiting on a timeout).
 *
 * <p>Failures are rare and go through a lock; the success path, taken for every reply, reads two volatile fields
 * and returns.
 */
final class ServerHealth {
    private static final Logger LOG = LoggerFactory.getLogger(ServerHealth.class);

    private final ServerAddress address;
    private final int failureLimit;
    private final long retryMillis;
    private volatile int failuresInARow;
    private volatile boolean ejected;
    /** A probe is scheduled or in flight: there is never more than one per server. Guarded by this. */
    private boolean probing;
    private volatile int probesSent;

    ServerHealth(ServerAddress address, int failureLimit, long retryMillis) {
        this.address = address;
        this.failureLimit = failureLimit;
        this.retryMillis = retryMillis;
    }

    /** From the failure that reaches the limit until a probe is answered. */
    boolean ejected() {
        return ejected;
    }

    long retryMillis() {
        return retryMillis;
    }

    int failuresInARow() {
        return failuresInARow;
    }

    /**
     * Counts one failure in a row. Returns true when it ejects the server and no probe is under way: the caller
     * then owns the probe cycle and schedules it, until {@link #probeEnded()}.
     */
    synchronized boolean failed(String why) {
        failuresInARow++;
        if (failuresInARow >= failureLimit && !ejected) {
            ejected = true;
            LOG.warn("memcached server {} ejected after {} failures in a row (last: {}); probing every {} ms",
                    address, failuresInARow, why, retryMillis);
            if (!probing) {
                probing = true;
                return true;
            }
        } else {
            LOG.debug("memcached server {}: {}", address, why);
        }
        return false;
    }

    /** A reply came: the failures in a row end, and so does an ejection (only a probe reaches an ejected server). */
    void answered() {
        if (failuresInARow == 0 && !ejected) {
            return;
        }
        synchronized (this) {
            if (ejected) {
                ejected = false;
                LOG.info("memcached server {} is back", address);
            }
            failuresInARow = 0;
        }
    }

    synchronized void probeSent() {
        probesSent++;
    }

    /**
     * The probe cycle's owner is done: its probe was answered, or there is nothing more to probe. Returns true, and
     * the cycle goes on, when the server was ejected again meanwhile: that ejection found the cycle still running
     * and started none of its own, so ending it now would leave the server ejected with nobody probing it.
     */
    synchronized boolean probeEnded() {
        if (ejected) {
            return true;
        }
        probing = false;
        return false;
    }

    /** Probes sent since the start; tests read it to check that probes do not multiply. */
    int probesSent() {
        return probesSent;
    }
}
