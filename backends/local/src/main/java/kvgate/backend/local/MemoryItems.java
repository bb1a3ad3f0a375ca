package kvgate.backend.local;

import java.util.function.BiPredicate;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import kvgate.spi.Item;
import kvgate.spi.ItemTransition;
import kvgate.spi.Result;
import kvgate.spi.Status;

/**
 * A namespace's items in memory only: an {@link EntryTable} whose payloads are packed items ({@link ItemType}), its
 * memory counted against the store's {@link MemoryBudget}, which a write over the limit evicts from.
 */
final class MemoryItems implements Items {
    private final EntryTable table;
    private final MemoryBudget budget;

    /** Items without a memory limit, for tests. */
    MemoryItems(long seed) {
        this(seed, MemoryBudget.unlimited());
    }

    MemoryItems(long seed, MemoryBudget budget) {
        this(seed, budget, true);
    }

    /** Items whose memory counts against {@code budget}; evicted from only when {@code evictable}. */
    MemoryItems(long seed, MemoryBudget budget, boolean evictable) {
        this.table = budget.newTable(seed, evictable);
        this.budget = budget;
    }

    @Override
    public Item get(byte[] key) {
        byte[] entry = table.get(key, table.hash(key));
        if (entry == null) {
            return null;
        }
        table.markUsed(entry);
        return unpack(entry);
    }

    /** The table, for {@link LocalStore#executeAll}'s read-ahead. */
    EntryTable table() {
        return table;
    }

    @Override
    public ItemTransition update(byte[] key, Function<Item, ItemTransition> transition) {
        ItemTransition decided = decide(key, transition);
        if (decided.effect() == ItemTransition.Effect.PUT) {
            // Outside the key's lock: an eviction takes other segments' locks, and no thread may hold two.
            budget.evictWhileOver();
        }
        return decided;
    }

    private ItemTransition decide(byte[] key, Function<Item, ItemTransition> transition) {
        int hash = table.hash(key);
        synchronized (table.lockFor(hash)) {
            byte[] present = table.get(key, hash);
            ItemTransition decided = transition.apply(unpack(present));
            switch (decided.effect()) {
                case PUT -> {
                    Item next = decided.next();
                    int length = ItemType.packedLength(next);
                    if (EntryTable.footprint(key.length, length) > budget.limit()) {
                        // An item the whole store could not hold would be evicted as it is stored, and everything
                        // else with it: refused instead, the old item kept, as memcached refuses one too large.
                        return new ItemTransition(ItemTransition.Effect.NONE, null, Result.failure(Status.TOO_LARGE,
                                "the item is larger than the store's memory_limit"));
                    }
                    if (present != null && EntryTable.payloadLength(present) == length) {
                        // A value of the same length (a set of fixed-size values, a touch, most counters) goes over
                        // the old one: no new entry for the collector to copy and its slot array to scan again.
                        int version = EntryTable.beginRewrite(present);
                        ItemType.pack(next, present, EntryTable.payloadAt(present));
                        EntryTable.endRewrite(present, version);
                        table.markUsed(present);
                    } else {
                        byte[] entry = EntryTable.newEntry(key, hash, length);
                        ItemType.pack(next, entry, EntryTable.payloadAt(entry));
                        table.put(entry);
                    }
                    if (next.expiresAt() != Item.NEVER) {
                        table.watch(hash); // the purge reads only the parts of the table that hold such items
                    }
                }
                case REMOVE -> table.remove(key, hash);
                case NONE -> {
                }
            }
            return decided;
        }
    }

    @Override
    public boolean forEachLive(long now, BiPredicate<byte[], Item> visitor) {
        return table.forEachWhile(entry -> {
            Item item = unpack(entry);
            return item.isExpiredAt(now) || visitor.test(EntryTable.key(entry), item);
        });
    }

    @Override
    public void removeExpired(long now, BooleanSupplier stop) {
        table.removeIf(entry -> isExpiredAt(entry, now), MemoryItems::expires, stop);
    }

    @Override
    public void clear() {
        table.clear();
    }

    @Override
    public long size() {
        return table.size();
    }

    /** The entry holding {@code key}, or null: for tests of what a write does to it. */
    byte[] entryOf(byte[] key) {
        return table.get(key, table.hash(key));
    }

    /** The item an entry holds, read whole even while a writer rewrites it in place; null for null. */
    private static Item unpack(byte[] entry) {
        if (entry == null) {
            return null;
        }
        int at = EntryTable.payloadAt(entry);
        while (true) {
            int version = EntryTable.beginRead(entry);
            Item item = ItemType.unpack(entry, at);
            if (EntryTable.isWhole(entry, version)) {
                return item;
            }
        }
    }

    /** Whether an entry's item has expired; for the purge, under the key's lock, where no rewrite is under way. */
    private static boolean isExpiredAt(byte[] entry, long now) {
        return ItemType.isExpiredAt(entry, EntryTable.payloadAt(entry), now);
    }

    /** Whether an entry's item has an expiry at all; as {@link #isExpiredAt}. */
    private static boolean expires(byte[] entry) {
        return ItemType.expiresAt(entry, EntryTable.payloadAt(entry)) != Item.NEVER;
    }
}
