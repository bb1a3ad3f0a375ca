package kvgate.backend.local;

import java.util.function.BiPredicate;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import kvgate.spi.Item;
import kvgate.spi.ItemTransition;

/**
 * The items of one namespace, by key: in the store file ({@link FileItems}) or only in memory
 * ({@link MemoryItems}). Reads take no lock and see a whole item, the one before or the one after a concurrent
 * write; every write runs under a lock for its key, so that no two writers of one key interleave.
 */
sealed interface Items permits FileItems, MemoryItems {
    /** The item stored under {@code key}, expired or not; null if there is none. */
    Item get(byte[] key);

    /**
     * Hands the key's current item (or null) to {@code transition} and stores or removes what it decides, all under
     * the key's lock; returns the transition. The key's array is not kept: the operation still owns it.
     */
    ItemTransition update(byte[] key, Function<Item, ItemTransition> transition);

    /**
     * Hands every item not expired at {@code now}, with a copy of its key, to {@code visitor} until it answers
     * false; returns whether it saw them all. Writes made meanwhile may be seen or not.
     */
    boolean forEachLive(long now, BiPredicate<byte[], Item> visitor);

    /** Removes the items expired at {@code now}, each checked again under its key's lock; stops when told. */
    void removeExpired(long now, BooleanSupplier stop);

    void clear();

    long size();
}
