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
 * has expired. The gateway's own namespaces count against the limit but are not sampled (see
 * {@link kvgate.spi.Namespace#isGatewaysOwn}). Each entry carries the second of its last use ({@link EntryTable#markUsed}); keeping an exact order
 * instead (a list through the entries) would cost every read a lock and two more references an item.
 */
final class MemoryBudget {
    /** Entries compared for one eviction: Redis's default of 5 is near exact LRU from 10; 8 is a cache line of them. */
    static final int SAMPLES = 8;
    /** Tries in a row that remove nothing after which a write stops evicting: the next write tries again. */
    private static final int FRUITLESS_TRIES = 16;

    private final long limit;
    private final Clock clock;
    private final LongAdder used = new LongAdder();
    private final LongAdder evictions = new LongAdder();
    private final LongAdder reclaimed = new LongAdder();
    /** The tables eviction samples. */
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

    /**
     * A new table whose memory counts against this budget; one that is not {@code evictable} is never sampled for
     * eviction (the gateway's own records: a tag's key list, a collections manifest).
     */
    EntryTable newTable(long seed, boolean evictable) {
        EntryTable table = new EntryTable(seed, this);
        if (evictable) {
            tables.add(table);
        }
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

    /**
     * After a write: evicts while the tables take more than the limit, however many entries that takes (a large
     * value may need many small ones to go). Stops early only when {@value #FRUITLESS_TRIES} tries in a row removed
     * nothing: every sample lost to a writer, or nothing left to evict. Hold no table's lock.
     */
    void evictWhileOver() {
        Candidates candidates = null;
        for (int fruitless = 0; fruitless < FRUITLESS_TRIES && used.sum() > limit; ) {
            if (candidates == null) {
                candidates = candidates();
                if (candidates.total() == 0) {
                    return;
                }
            }
            if (evictOne(candidates)) {
                fruitless = 0;
            } else {
                fruitless++;
                candidates = null; // weighed again: a table may have emptied meanwhile
            }
        }
    }

    /**
     * The tables eviction samples and the bytes each held when the eviction began, which weigh the choice of table:
     * taken once per write that evicts, not once per sample, as namespaces can be many.
     */
    private record Candidates(EntryTable[] tables, long[] upTo, long total) {
        /** A table at random, each as likely as its share of the bytes. */
        EntryTable pick() {
            long at = ThreadLocalRandom.current().nextLong(total);
            for (int i = 0; i < tables.length; i++) {
                if (at < upTo[i]) {
                    return tables[i];
                }
            }
            return tables[tables.length - 1];
        }
    }

    private Candidates candidates() {
        EntryTable[] all = tables.toArray(EntryTable[]::new);
        long[] upTo = new long[all.length];
        long total = 0;
        for (int i = 0; i < all.length; i++) {
            total += Math.max(0, all[i].bytes());
            upTo[i] = total;
        }
        return new Candidates(all, upTo, total);
    }

    /** Evicts the least recently used of a sample, or an expired entry met in it; false if it removed nothing. */
    private boolean evictOne(Candidates candidates) {
        long nowMillis = clock.millis();
        int second = now;
        EntryTable.Sample chosen = null;
        int chosenAge = Integer.MIN_VALUE;
        for (int i = 0; i < SAMPLES; i++) {
            EntryTable.Sample sample = candidates.pick().sample();
            if (sample == null) {
                continue;
            }
            byte[] entry = sample.entry();
            // Read as readers do, against the version the sample took: an expiry read across a rewrite is not
            // trusted, and the eviction itself checks the version again under the key's lock.
            boolean expired = ItemType.isExpiredAt(entry, EntryTable.payloadAt(entry), nowMillis);
            if (expired && sample.unchanged()) {
                boolean evicted = sample.table().evict(sample);
                if (evicted) {
                    reclaimed.increment();
                }
                return evicted;
            }
            int age = second - EntryTable.lastUsed(entry);
            if (age > chosenAge) {
                chosen = sample;
                chosenAge = age;
            }
        }
        if (chosen == null || !chosen.table().evict(chosen)) {
            return false;
        }
        evictions.increment();
        return true;
    }
}
