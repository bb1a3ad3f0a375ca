package kvgate.backend.local;

import java.nio.ByteBuffer;
import kvgate.spi.Item;
import org.h2.mvstore.DataUtils;
import org.h2.mvstore.WriteBuffer;
import org.h2.mvstore.type.BasicDataType;

/**
 * How an {@link Item} is laid out in the store file: a format byte (so the layout can change without breaking old
 * files), the value with its length, flags, CAS and expiry.
 */
final class ItemType extends BasicDataType<Item> {
    static final ItemType INSTANCE = new ItemType();

    private static final byte FORMAT_1 = 1;
    /** Rough heap cost of an item besides its value: the record, the array header, the page slot. */
    private static final int OVERHEAD = 64;

    private ItemType() {
    }

    @Override
    public int getMemory(Item item) {
        return OVERHEAD + item.value().length;
    }

    @Override
    public void write(WriteBuffer buffer, Item item) {
        buffer.put(FORMAT_1)
                .putVarInt(item.value().length)
                .put(item.value())
                .putInt(item.flags())
                .putLong(item.cas())
                .putVarLong(item.expiresAt());
    }

    @Override
    public Item read(ByteBuffer buffer) {
        byte format = buffer.get();
        if (format != FORMAT_1) {
            throw new IllegalStateException("unknown item format " + format + " in the store file");
        }
        byte[] value = new byte[DataUtils.readVarInt(buffer)];
        buffer.get(value);
        int flags = buffer.getInt();
        long cas = buffer.getLong();
        long expiresAt = DataUtils.readVarLong(buffer);
        return new Item(value, flags, cas, expiresAt);
    }

    @Override
    public Item[] createStorage(int size) {
        return new Item[size];
    }
}
