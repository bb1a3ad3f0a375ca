package kvgate.spi;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One server's health, shared by a backend's connections to it on every event loop: its {@link CircuitBreaker},
 * which ejects the server after failures in a row, and the probes sent while it is ejected. Shared because ejection
 * is a fact about the server: once it is ejected, requests on every loop must fail at once (or go elsewhere), not
 * each loop's connection count its own failures up to the limit, each of those a client waiting on a timeout.
 */
public final class ServerHealth {
    private static final Logger LOG = LoggerFactory.getLogger(ServerHealth.class);

    private final String name;
    private final CircuitBreaker breaker;
    private volatile int probesSent;

    /**
     * @param name the server as logs and failures name it, e.g. {@code memcached server 10.0.0.1:11211}
     * @param failureLimit failures in a row that eject it, at least 1
     * @param retryMillis how often it is probed while ejected
     */
    public ServerHealth(String name, int failureLimit, long retryMillis) {
        this.name = name;
        this.breaker = new CircuitBreaker(failureLimit, retryMillis);
    }

    public String name() {
        return name;
    }

    /** From the failure that reaches the limit until a probe is answered. */
    public boolean ejected() {
        return breaker.isOpen();
    }

    public long retryMillis() {
        return breaker.retryMillis();
    }

    public int failuresInARow() {
        return breaker.failuresInARow();
    }

    /**
     * Counts one failure in a row. Returns true when it ejects the server and no probe is under way: the caller
     * then owns the probe cycle and schedules it, until {@link #probeEnded()}.
     */
    public boolean failed(String why) {
        if (!breaker.failed()) {
            LOG.debug("{}: {}", name, why);
            return false;
        }
        LOG.warn("{} ejected after {} failures in a row (last: {}); probing every {} ms",
                name, breaker.failuresInARow(), why, breaker.retryMillis());
        return breaker.startProbing();
    }

    /** A reply came: the failures in a row end, and so does an ejection (only a probe reaches an ejected server). */
    public void answered() {
        if (breaker.answered()) {
            LOG.info("{} is back", name);
        }
    }

    public synchronized void probeSent() {
        probesSent++;
    }

    /** See {@link CircuitBreaker#probeEnded}. */
    public boolean probeEnded() {
        return breaker.probeEnded();
    }

    /** Probes sent since the start; tests read it to check that probes do not multiply. */
    public int probesSent() {
        return probesSent;
    }
}
