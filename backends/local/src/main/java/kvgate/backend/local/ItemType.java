package kvgate.backend.local;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import kvgate.spi.Item;
import kvgate.spi.Lease;
import org.h2.mvstore.DataUtils;
import org.h2.mvstore.WriteBuffer;
import org.h2.mvstore.type.BasicDataType;

/**
 * An {@link Item} as the store keeps it: in memory one array, flags, CAS, expiry and lease ahead of the value, so an
 * item costs one object and 21 bytes besides its value (an Item record and its value array would cost two objects and
 * about 56 bytes: a million small items in memory must fit in twice what memcached needs). In memory mode that
 * array is the end of its key's entry ({@link EntryTable}), so an item and its key are one object. In the store
 * file: a format byte (so the layout can change without breaking old files), the value with its length, flags,
 * CAS and expiry, and in format 2 the lease (an item whose lease is {@link Lease#NONE} is written in format 1, which
 * files written before leases hold).
 */
final class ItemType extends BasicDataType<byte[]> {
    static final ItemType INSTANCE = new ItemType();

    private static final byte FORMAT_1 = 1;
    /** Format 1 followed by the lease's {@link Lease#code()}. */
    private static final byte FORMAT_2 = 2;
    private static final int FLAGS = 0;
    private static final int CAS = 4;
    private static final int EXPIRES_AT = 12;
    private static final int LEASE = 20;
    private static final int VALUE = 21;
    /** The fields in big-endian order, as ByteBuffer wrote them before: a view, so that no buffer is allocated. */
    private static final VarHandle INTS = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);
    /** Rough heap cost of an item besides its value: the array header and fields, the page slot. */
    private static final int OVERHEAD = 48;

    private ItemType() {
    }

    /** An item in its stored form. */
    static byte[] pack(Item item) {
        byte[] packed = new byte[packedLength(item)];
        pack(item, packed, 0);
        return packed;
    }

    /** The length of an item's stored form. */
    static int packedLength(Item item) {
        return VALUE + item.value().length;
    }

    /** Writes an item's stored form into {@code into} from {@code at}, where {@link #packedLength} bytes are free. */
    static void pack(Item item, byte[] into, int at) {
        byte[] value = item.value();
        INTS.set(into, at + FLAGS, item.flags());
        LONGS.set(into, at + CAS, item.cas());
        LONGS.set(into, at + EXPIRES_AT, item.expiresAt());
        into[at + LEASE] = (byte) item.lease().code();
        System.arraycopy(value, 0, into, at + VALUE, value.length);
    }

    /** The item a stored form holds; null for null. */
    static Item unpack(byte[] packed) {
        return packed == null ? null : unpack(packed, 0);
    }

    /** The item whose stored form fills {@code array} from {@code at} to its end. */
    static Item unpack(byte[] array, int at) {
        return new Item(Arrays.copyOfRange(array, at + VALUE, array.length), (int) INTS.get(array, at + FLAGS),
                (long) LONGS.get(array, at + CAS), (long) LONGS.get(array, at + EXPIRES_AT),
                Lease.ofCode(array[at + LEASE]));
    }

    /** Whether a stored item has expired at {@code now}, read without unpacking it. */
    static boolean isExpiredAt(byte[] packed, long now) {
        return isExpiredAt(packed, 0, now);
    }

    /** Whether the stored item in {@code array} from {@code at} has expired at {@code now}. */
    static boolean isExpiredAt(byte[] array, int at, long now) {
        return Item.isExpiredAt(expiresAt(array, at), now);
    }

    /** The expiry of the stored item in {@code array} from {@code at} ({@link Item#NEVER} for none). */
    static long expiresAt(byte[] array, int at) {
        return (long) LONGS.get(array, at + EXPIRES_AT);
    }

    @Override
    public int getMemory(byte[] packed) {
        return OVERHEAD + packed.length;
    }

    @Override
    public void write(WriteBuffer buffer, byte[] packed) {
        byte lease = packed[LEASE];
        buffer.put(lease == 0 ? FORMAT_1 : FORMAT_2)
                .putVarInt(packed.length - VALUE)
                .put(packed, VALUE, packed.length - VALUE)
                .putInt((int) INTS.get(packed, FLAGS))
                .putLong((long) LONGS.get(packed, CAS))
                .putVarLong((long) LONGS.get(packed, EXPIRES_AT));
        if (lease != 0) {
            buffer.put(lease);
        }
    }

    @Override
    public byte[] read(ByteBuffer buffer) {
        byte format = buffer.get();
        if (format != FORMAT_1 && format != FORMAT_2) {
            throw new IllegalStateException("unknown item format " + format + " in the store file");
        }
        int length = DataUtils.readVarInt(buffer);
        byte[] packed = new byte[VALUE + length];
        buffer.get(packed, VALUE, length);
        INTS.set(packed, FLAGS, buffer.getInt());
        LONGS.set(packed, CAS, buffer.getLong());
        LONGS.set(packed, EXPIRES_AT, DataUtils.readVarLong(buffer));
        if (format == FORMAT_2) {
            packed[LEASE] = (byte) Lease.ofCode(buffer.get()).code(); // an unknown code is refused
        }
        return packed;
    }

    @Override
    public byte[][] createStorage(int size) {
        return new byte[size][];
    }
}
