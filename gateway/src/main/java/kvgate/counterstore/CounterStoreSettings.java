package kvgate.counterstore;

import java.util.List;
import java.util.Map;
import kvgate.spi.Setting;

/**
 * The keys of the counter store, which the counter protocol's counters live in. They keep the counter extension's own
 * names ({@code counter.buckets}, {@code counter.stats_interval}), so its users' configurations carry over.
 */
public final class CounterStoreSettings {
    public static final String STORE = "counter.store";
    public static final String BUCKETS = "counter.buckets";
    public static final String STATS_INTERVAL = "counter.stats_interval";
    public static final String LEASE_MS = "counter.lease_ms";
    /** {@link #STORE}'s value for the built-in store: in this process's memory, not persisted. */
    public static final String MEMORY = "memory";

    /** These keys, in the order docs/configuration.md lists them. */
    public static final List<Setting> ALL = List.of(
            Setting.text(STORE, MEMORY,
                    "where counters live: `memory` (this process, not persisted, as in the reference) or the type of "
                    + "a backend plugin that keeps counters (`Capability.COUNTERS`)"),
            Setting.integer(BUCKETS, 1_000_000, 1, Integer.MAX_VALUE,
                    "expected number of counters (sizes the counter table)"),
            Setting.integer(STATS_INTERVAL, 86_400, 10, 86_400 * 366,
                    "the interval, in seconds aligned to the epoch (86400: UTC days), over which Dump reports each "
                    + "counter's maximum; "
                    + "`counter.stat_interval` (the reference server's spelling) is accepted too"),
            Setting.integer(LEASE_MS, 60_000, 300, 86_400_000,
                    "with a shared counter store (`counter.store = redis`): a gateway renews its connections' "
                    + "acquisitions every third of this; a gateway that died without closing its connections has its "
                    + "acquisitions released this many milliseconds after its last renewal. Keep it well above the "
                    + "time the store takes to fail over (a Redis Cluster's `cluster-node-timeout`, 15 s by default, "
                    + "plus the election), or a failover gives back every holding"));

    /**
     * The reference counter server's own sample configuration says {@code counter.stat_interval} where its document
     * says {@code counter.stats_interval}: both are accepted.
     */
    public static final Map<String, String> ALIASES = Map.of("counter.stat_interval", STATS_INTERVAL);

    private CounterStoreSettings() {
    }
}
