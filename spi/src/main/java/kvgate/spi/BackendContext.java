package kvgate.spi;

import io.netty.channel.EventLoopGroup;
import java.time.Clock;

/**
 * What the gateway gives a backend it opens.
 *
 * @param name the instance name, for logs and thread names: {@code <name>} for {@code backends.<name>}, the type
 *     ({@code local}) for the backend of {@code backend = <type>}
 * @param settings the values of the settings the factory declared, validated, defaults filled in; besides them,
 *     the gateway's counter settings a counter store needs, under {@link #COUNTER_LEASE_MS} and
 *     {@link #COUNTER_STATS_INTERVAL}
 * @param clock the time source for expiry; tests pass a controllable one
 * @param maxItemSize the largest value, in bytes, a store may produce (appends included)
 * @param eventLoops the gateway's network threads: a backend that talks to servers over the network runs its
 *     connections on them (no thread of its own per request or connection); never block on them
 */
public record BackendContext(String name, Settings settings, Clock clock, int maxItemSize,
                             EventLoopGroup eventLoops) {
    /**
     * The gateway setting, passed in {@link #settings()} under this key, of how long a shared counter store keeps a
     * gateway's acquisitions after that gateway's last renewal (milliseconds).
     */
    public static final String COUNTER_LEASE_MS = "counter.lease_ms";
    /** The gateway setting, passed in {@link #settings()} under this key, of the counters' statistics interval (s). */
    public static final String COUNTER_STATS_INTERVAL = "counter.stats_interval";
}
