package kvgate.backend.local;

import java.time.Clock;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.LongAdder;

/**
 * The memory the in-memory store's tables take together ({@code local.memory_limit}), and the eviction that holds
 * them to it: a write that takes them over the limit evicts, once its key's lock is released, until they are back
 * under it. As memcached's {@code -m}: a cache in memory is full at its limit, not at the JVM's, where it would fail
 * every request with an {@code OutOfMemoryError} instead of forgetting the least used items.
 *
 * <p>Eviction is least-recently-used, approximated as Redis does: of {@value #SAMPLES} entries sampled at random
 * (over the tables, each as likely as its share of the memory), the one used longest ago goes, or at once one that
 * has expired. Each entry carries the second of its last use ({@link EntryTable#markUsed}); keeping an exact order
 * instead (a list through the entries) would cost every read a lock and two more references an item.
 */
final class MemoryBudget {
    /** Entries compared for one eviction: Redis's default of 5 is near exact LRU from 10; 8 is a cache line of them. */
    static final int SAMPLES = 8;
    /**
     * Evictions one write does at most: enough for a value of the largest size among small ones, few enough that
     * no write waits long; the next write goes on where it stopped.
     */
    private static final int MOST_EVICTIONS_A_WRITE = 64;

    private final long limit;
    private final Clock clock;
    private final LongAdder used = new LongAdder();
    private final LongAdder evictions = new LongAdder();
    private final LongAdder reclaimed = new LongAdder();
    private final List<EntryTable> tables = new CopyOnWriteArrayList<>();
    /** The clock's second, as entries are stamped with it: read on every use, so kept here rather than computed. */
    private volatile int now;

    MemoryBudget(long limit, Clock clock) {
        this.limit = limit;
        this.clock = clock;
        tick();
    }

    /** A budget without a limit, for tables used on their own. */
    static MemoryBudget unlimited() {
        return new MemoryBudget(Long.MAX_VALUE, Clock.systemUTC());
    }

    /** A new table whose memory counts against this budget. */
    EntryTable newTable(long seed) {
        EntryTable table = new EntryTable(seed, this);
        tables.add(table);
        return table;
    }

    /** Moves the clock entries are stamped with to the current second: the store calls it every second or sooner. */
    void tick() {
        now = (int) (clock.millis() / 1000);
    }

    int now() {
        return now;
    }

    void add(long bytes) {
        used.add(bytes);
    }

    long used() {
        return used.sum();
    }

    long limit() {
        return limit;
    }

    /** Entries removed to stay under the limit that had not expired. */
    long evictions() {
        return evictions.sum();
    }

    /** Entries removed to stay under the limit that had expired: space taken back before the purge came by. */
    long reclaimed() {
        return reclaimed.sum();
    }

    /** After a write: evicts while the tables take more than the limit. Hold no table's lock. */
    void evictWhileOver() {
        for (int i = 0; i < MOST_EVICTIONS_A_WRITE && used.sum() > limit; i++) {
            if (!evictOne()) {
                return;
            }
        }
    }

    /** Evicts the least recently used of a sample, or an expired entry met in it; false if nothing was found. */
    private boolean evictOne() {
        long nowMillis = clock.millis();
        int second = now;
        EntryTable.Sample chosen = null;
        int chosenAge = Integer.MIN_VALUE;
        for (int i = 0; i < SAMPLES; i++) {
            EntryTable table = pickTable();
            EntryTable.Sample sample = table == null ? null : table.sample();
            if (sample == null) {
                continue;
            }
            // Read without the key's lock: a rewrite under way can show a torn expiry, which only makes this one
            // choice a worse one.
            byte[] entry = sample.entry();
            if (ItemType.isExpiredAt(entry, EntryTable.payloadAt(entry), nowMillis)) {
                if (table.evict(sample)) {
                    reclaimed.increment();
                }
                return true;
            }
            int age = second - EntryTable.lastUsed(entry);
            if (age > chosenAge) {
                chosen = sample;
                chosenAge = age;
            }
        }
        if (chosen == null) {
            return false;
        }
        if (chosen.table().evict(chosen)) {
            evictions.increment();
        }
        return true;
    }

    /** A table at random, each as likely as its share of the memory; null when all are empty. */
    private EntryTable pickTable() {
        if (tables.size() == 1) {
            return tables.get(0);
        }
        long total = 0;
        for (EntryTable table : tables) {
            total += Math.max(0, table.bytes());
        }
        if (total == 0) {
            return null;
        }
        long at = ThreadLocalRandom.current().nextLong(total);
        for (EntryTable table : tables) {
            at -= Math.max(0, table.bytes());
            if (at < 0) {
                return table;
            }
        }
        return null; // the tables shrank between the two sums
    }
}
