package kvgate.spi;

/**
 * One counter of the counter protocol as a store keeps it, and the rules that change it, as pure functions:
 * what {@link ItemTransition} is for items. A store keeps one per name and namespace, changes it only inside an atomic
 * section of its own (a lock, a concurrent map's {@code compute}), and keeps who holds what in a
 * {@link CounterLedger}; it then answers {@link Operation.Acquire}, {@link Operation.Release},
 * {@link Operation.ReleaseAll}, {@link Operation.ReadCounter} and {@link Operation.DumpCounters} as every other
 * store does, and re-derives none of the rules.
 *
 * <p>Statistics intervals are multiples of {@link CounterRules#statsIntervalSeconds()} since the epoch. The first
 * change in a new interval starts the interval's maximum from the consumption the interval began with; a counter not
 * changed in the current interval reports what it holds as its maximum.
 *
 * @param consumption the resources taken now
 * @param intervalMax the highest consumption since the start of the interval of {@code lastChanged}
 * @param lastChanged the epoch second of the last change
 */
public record Counter(long consumption, long intervalMax, long lastChanged) {

    /**
     * The counter after an acquisition of {@code resources} at {@code nowSeconds}, or null when the consumption would
     * pass {@code maximum} ({@link Status#LIMIT_REACHED}). A counter that does not exist yet ({@code current} null) is
     * created holding them, whatever the maximum, as the reference server does. Amounts are below 2^32, so sums do
     * not overflow.
     */
    public static Counter acquired(Counter current, long resources, long maximum, long nowSeconds,
                                   long intervalSeconds) {
        if (current == null) {
            return new Counter(resources, resources, nowSeconds);
        }
        long after = current.consumption + resources;
        return after > maximum ? null : current.changedTo(after, nowSeconds, intervalSeconds);
    }

    /** The counter after {@code resources} are given back, never below 0. */
    public Counter released(long resources, long nowSeconds, long intervalSeconds) {
        return changedTo(Math.max(0, consumption - resources), nowSeconds, intervalSeconds);
    }

    private Counter changedTo(long after, long nowSeconds, long intervalSeconds) {
        long max = lastChanged < intervalStart(nowSeconds, intervalSeconds) ? consumption : intervalMax;
        return new Counter(after, Math.max(max, after), nowSeconds);
    }

    /** The maximum a dump reports at {@code nowSeconds}: the interval's, or what it holds if unchanged in it. */
    public long reportedMax(long nowSeconds, long intervalSeconds) {
        return lastChanged < intervalStart(nowSeconds, intervalSeconds) ? consumption : intervalMax;
    }

    /** Whether a store may forget it: at 0 and unchanged in the current interval, so nobody holds any of it. */
    public boolean idle(long nowSeconds, long intervalSeconds) {
        return consumption == 0 && lastChanged < intervalStart(nowSeconds, intervalSeconds);
    }

    /** The start of the statistics interval holding {@code nowSeconds}. */
    public static long intervalStart(long nowSeconds, long intervalSeconds) {
        return Math.floorDiv(nowSeconds, intervalSeconds) * intervalSeconds;
    }
}
