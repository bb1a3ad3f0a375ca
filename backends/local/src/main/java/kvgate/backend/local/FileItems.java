package kvgate.backend.local;

import java.util.Arrays;
import java.util.Iterator;
import java.util.Map;
import java.util.function.BiPredicate;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import kvgate.spi.Item;
import kvgate.spi.ItemTransition;
import org.h2.mvstore.MVMap;

/**
 * A namespace's items in the store file: an MVStore map from key to packed item ({@link KeyType},
 * {@link ItemType}). Writers take one of the store's lock stripes by key hash; MVStore's copy-on-write pages let
 * readers go without one.
 */
final class FileItems implements Items {
    private final MVMap<byte[], byte[]> map;
    /** Shared by every namespace of the store. */
    private final Object[] stripes;

    FileItems(MVMap<byte[], byte[]> map, Object[] stripes) {
        this.map = map;
        this.stripes = stripes;
    }

    @Override
    public Item get(byte[] key) {
        return ItemType.unpack(map.get(key));
    }

    @Override
    public ItemTransition update(byte[] key, Function<Item, ItemTransition> transition) {
        synchronized (stripeOf(key)) {
            ItemTransition decided = transition.apply(ItemType.unpack(map.get(key)));
            switch (decided.effect()) {
                // A copy of the key: the map keeps it, and the operation's array is not the store's to keep.
                case PUT -> map.put(key.clone(), ItemType.pack(decided.next()));
                case REMOVE -> map.remove(key);
                case NONE -> {
                }
            }
            return decided;
        }
    }

    @Override
    public boolean forEachLive(long now, BiPredicate<byte[], Item> visitor) {
        for (Map.Entry<byte[], byte[]> entry : map.entrySet()) {
            if (!ItemType.isExpiredAt(entry.getValue(), now)
                    && !visitor.test(entry.getKey().clone(), ItemType.unpack(entry.getValue()))) {
                return false;
            }
        }
        return true;
    }

    @Override
    public void removeExpired(long now, BooleanSupplier stop) {
        Iterator<Map.Entry<byte[], byte[]>> entries = map.entrySet().iterator();
        while (entries.hasNext() && !stop.getAsBoolean()) {
            Map.Entry<byte[], byte[]> entry = entries.next();
            if (ItemType.isExpiredAt(entry.getValue(), now)) {
                byte[] key = entry.getKey();
                synchronized (stripeOf(key)) {
                    byte[] current = map.get(key);
                    if (current != null && ItemType.isExpiredAt(current, now)) {
                        map.remove(key);
                    }
                }
            }
        }
    }

    @Override
    public void clear() {
        clearHolding(0);
    }

    /**
     * Clears the map holding every stripe's lock, taken in order: a read-modify-write of any key (an append that read
     * the item before the flush) either lands before the flush or reads the empty map after it, never writes its
     * old item back over a flush that was acknowledged.
     */
    private void clearHolding(int stripe) {
        if (stripe == stripes.length) {
            map.clear();
            return;
        }
        synchronized (stripes[stripe]) {
            clearHolding(stripe + 1);
        }
    }

    @Override
    public long size() {
        return map.sizeAsLong();
    }

    private Object stripeOf(byte[] key) {
        return stripes[Arrays.hashCode(key) & (stripes.length - 1)];
    }
}
