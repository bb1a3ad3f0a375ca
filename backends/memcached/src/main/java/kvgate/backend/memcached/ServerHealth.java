package kvgate.backend.memcached;

import kvgate.spi.CircuitBreaker;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One memcached server's health, shared by its connections on every event loop: its {@link CircuitBreaker}, which
 * ejects the server after failures in a row, and the probes sent while it is ejected. Shared because ejection is a
 * fact about the server: once it is ejected, requests on every loop must fail at once, not each loop's connection
 * counting its own failures up to the limit (each of those a client waiting on a timeout).
 */
final class ServerHealth {
    private static final Logger LOG = LoggerFactory.getLogger(ServerHealth.class);

    private final ServerAddress address;
    private final CircuitBreaker breaker;
    private volatile int probesSent;

    ServerHealth(ServerAddress address, int failureLimit, long retryMillis) {
        this.address = address;
        this.breaker = new CircuitBreaker(failureLimit, retryMillis);
    }

    /** From the failure that reaches the limit until a probe is answered. */
    boolean ejected() {
        return breaker.isOpen();
    }

    long retryMillis() {
        return breaker.retryMillis();
    }

    int failuresInARow() {
        return breaker.failuresInARow();
    }

    /**
     * Counts one failure in a row. Returns true when it ejects the server and no probe is under way: the caller
     * then owns the probe cycle and schedules it, until {@link #probeEnded()}.
     */
    boolean failed(String why) {
        if (!breaker.failed()) {
            LOG.debug("memcached server {}: {}", address, why);
            return false;
        }
        LOG.warn("memcached server {} ejected after {} failures in a row (last: {}); probing every {} ms",
                address, breaker.failuresInARow(), why, breaker.retryMillis());
        return breaker.startProbing();
    }

    /** A reply came: the failures in a row end, and so does an ejection (only a probe reaches an ejected server). */
    void answered() {
        if (breaker.answered()) {
            LOG.info("memcached server {} is back", address);
        }
    }

    synchronized void probeSent() {
        probesSent++;
    }

    /** See {@link CircuitBreaker#probeEnded}. */
    boolean probeEnded() {
        return breaker.probeEnded();
    }

    /** Probes sent since the start; tests read it to check that probes do not multiply. */
    int probesSent() {
        return probesSent;
    }
}
