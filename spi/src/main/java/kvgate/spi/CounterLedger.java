package kvgate.spi;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Who holds what of each counter: an owner (one client connection, see {@link Operation.CounterOperation#owner()})
 * can give back only what it acquired, and everything it holds goes back when it closes. Safe for concurrent use; one
 * owner's holdings are changed by one connection at a time, in its operations' order.
 *
 * @param <K> how the store names a counter (its name, or its namespace and name)
 */
public final class CounterLedger<K> {
    private final Map<String, Map<K, Long>> owners = new ConcurrentHashMap<>();

    /** Notes {@code resources} that {@code owner} acquired of {@code counter}. */
    public void acquired(String owner, K counter, long resources) {
        owners.computeIfAbsent(owner, ignored -> new ConcurrentHashMap<>()).merge(counter, resources, Long::sum);
    }

    /**
     * Whether {@code owner} holds at least {@code resources} of {@code counter}; one that holds none of it holds not
     * even 0 ({@link Status#NOT_HELD}, as the reference server answers a release of 0 of a counter not acquired).
     */
    public boolean holds(String owner, K counter, long resources) {
        Map<K, Long> held = owners.get(owner);
        Long holding = held == null ? null : held.get(counter);
        return holding != null && holding >= resources;
    }

    /**
     * Notes {@code resources} that {@code owner} gave back of {@code counter}, which it {@linkplain #holds holds}. A
     * holding brought to 0 is forgotten, as the reference erases the entry, so a long-lived connection's ledger does
     * not keep every name it ever used.
     */
    public void released(String owner, K counter, long resources) {
        Map<K, Long> held = owners.get(owner);
        if (held != null) {
            held.computeIfPresent(counter, (name, holding) -> holding <= resources ? null : holding - resources);
        }
    }

    /** Everything {@code owner} holds, by counter, now forgotten: its connection closed. Empty when it holds none. */
    public Map<K, Long> releaseAll(String owner) {
        Map<K, Long> held = owners.remove(owner);
        return held == null ? Map.of() : held;
    }
}
