package kvgate.backend.redis;

import java.nio.ByteBuffer;
import java.util.Arrays;
import kvgate.spi.Item;
import kvgate.spi.Lease;

/**
 * An item as Redis holds it: one string, a 20-byte header (flags: 4 bytes, CAS: 8, expiry in epoch milliseconds or
 * 0: 8, all big-endian) and the value. One string rather than a hash: a get is one GET of one value, and the
 * scripts read and write the whole item in one call. The header's expiry is what decides (by the gateway's clock); the
 * key also carries a TTL to the same time, so Redis reclaims an expired item's memory itself.
 */
final class StoredItem {
    static final int HEADER = 20;

    private StoredItem() {
    }

    /** An item as a plain read sees it: without its lease, which lives in a key of its own. */
    static Item decode(byte[] raw) {
        return decode(raw, 0);
    }

    /** An item and its lease, as a script read them both: the lease key beside the item holds the lease's code. */
    static Item decode(byte[] raw, long lease) {
        ByteBuffer header = ByteBuffer.wrap(raw, 0, HEADER);
        int flags = header.getInt();
        long cas = header.getLong();
        long expiresAt = header.getLong();
        return new Item(Arrays.copyOfRange(raw, HEADER, raw.length), flags, cas, expiresAt, Lease.ofCode((int) lease));
    }

    /** A CAS to compare with, as the scripts see it (the header's 8 bytes); empty for "no CAS check". */
    static byte[] casArgument(long cas) {
        return cas == 0 ? new byte[0] : ByteBuffer.allocate(Long.BYTES).putLong(cas).array();
    }

    /**
     * An expiry as the scripts take it: epoch milliseconds, 0 for never. A time before the epoch is expired all the
     * same, and is sent as 1 ms after it because the header holds unsigned numbers.
     */
    static byte[] expiryArgument(long expiresAt) {
        return KeyLayout.utf8(Long.toString(expiresAt < 0 ? 1 : expiresAt));
    }
}
