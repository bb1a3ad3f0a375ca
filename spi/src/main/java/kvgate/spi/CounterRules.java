package kvgate.spi;

/**
 * How the gateway is configured to keep counters, for a backend that is its counter store ({@code counter.store}):
 * what every store of counters applies, whichever protocol's settings they came from.
 *
 * @param statsIntervalSeconds the interval, in seconds aligned to the epoch, over which a dump reports each counter's
 *     highest consumption ({@link Operation.DumpCounters})
 * @param leaseMillis how long a store shared by several gateways keeps a gateway's acquisitions after that gateway's
 *     last renewal of them, so that the holdings of a gateway that died are given back
 */
public record CounterRules(long statsIntervalSeconds, long leaseMillis) {
    /** The gateway's defaults: a day's interval, a minute's lease. */
    public static final CounterRules DEFAULT = new CounterRules(86_400, 60_000);

    public CounterRules {
        if (statsIntervalSeconds < 1 || leaseMillis < 1) {
            throw new IllegalArgumentException("a counter interval and lease are positive, not " + statsIntervalSeconds
                    + " s and " + leaseMillis + " ms");
        }
    }
}
