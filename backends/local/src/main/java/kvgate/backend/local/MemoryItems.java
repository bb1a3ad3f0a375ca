package kvgate.backend.local;

import java.util.function.BiPredicate;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import kvgate.spi.Item;
import kvgate.spi.ItemTransition;

/** A namespace's items in memory only: an {@link EntryTable} whose payloads are packed items ({@link ItemType}). */
final class MemoryItems implements Items {
    private final EntryTable table;

    MemoryItems(long seed) {
        this.table = new EntryTable(seed);
    }

    @Override
    public Item get(byte[] key) {
        return unpack(table.get(key, table.hash(key)));
    }

    @Override
    public ItemTransition update(byte[] key, Function<Item, ItemTransition> transition) {
        int hash = table.hash(key);
        synchronized (table.lockFor(hash)) {
            ItemTransition decided = transition.apply(unpack(table.get(key, hash)));
            switch (decided.effect()) {
                case PUT -> {
                    Item next = decided.next();
                    byte[] entry = EntryTable.newEntry(key, hash, ItemType.packedLength(next));
                    ItemType.pack(next, entry, EntryTable.payloadAt(entry));
                    table.put(entry);
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
        return table.forEachWhile(entry -> isExpiredAt(entry, now)
                || visitor.test(EntryTable.key(entry), unpack(entry)));
    }

    @Override
    public void removeExpired(long now, BooleanSupplier stop) {
        table.removeIf(entry -> isExpiredAt(entry, now), stop);
    }

    @Override
    public void clear() {
        table.clear();
    }

    @Override
    public long size() {
        return table.size();
    }

    private static Item unpack(byte[] entry) {
        return entry == null ? null : ItemType.unpack(entry, EntryTable.payloadAt(entry));
    }

    private static boolean isExpiredAt(byte[] entry, long now) {
        return ItemType.isExpiredAt(entry, EntryTable.payloadAt(entry), now);
    }
}
