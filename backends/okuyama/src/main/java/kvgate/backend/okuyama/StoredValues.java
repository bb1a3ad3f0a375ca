package kvgate.backend.okuyama;

import java.nio.ByteBuffer;
import java.util.Arrays;
import kvgate.spi.Item;

/**
 * What the gateway stores as an okuyama value. In the cluster's own namespace a value is stored as it is, so that
 * okuyama's clients read what memcached's and the gateway's wrote: okuyama then keeps no flags, and its reads do not
 * tell the expiry. In any other namespace, which okuyama's clients never read, the value goes behind a header of the
 * flags and the absolute expiry, so that those namespaces keep memcached's whole item.
 */
final class StoredValues {
    /** A header's first bytes: a zero byte and the format's number. */
    private static final byte[] MAGIC = {0, 'k', 'v', 1};
    private static final int HEADER = MAGIC.length + Integer.BYTES + Long.BYTES;

    private StoredValues() {
    }

    static byte[] encode(boolean own, byte[] value, int flags, long expiresAt) {
        if (own) {
            return value;
        }
        return ByteBuffer.allocate(HEADER + value.length).put(MAGIC).putInt(flags).putLong(expiresAt).put(value)
                .array();
    }

    /** The item a stored value is; one without a header (written by something else) has no flags or expiry. */
    static Item decode(boolean own, byte[] stored, long cas) {
        if (own || stored.length < HEADER || !Arrays.equals(stored, 0, MAGIC.length, MAGIC, 0, MAGIC.length)) {
            return new Item(stored, 0, cas, Item.NEVER);
        }
        ByteBuffer header = ByteBuffer.wrap(stored, MAGIC.length, HEADER - MAGIC.length);
        int flags = header.getInt();
        long expiresAt = header.getLong();
        return new Item(Arrays.copyOfRange(stored, HEADER, stored.length), flags, cas, expiresAt);
    }
}
