package kvgate.spi;

/**
 * One stored item as the operation stream sees it.
 *
 * <p>The value array belongs to whoever holds the item and must never be changed after construction: backends
 * may hand out the array they store, and the gateway never writes into it.
 *
 * @param value the value bytes, never null (may be empty)
 * @param flags 32 opaque client bits (memcached flags), stored and returned unchanged
 * @param cas the item's compare-and-swap value: never 0 for a stored item, and different after every mutation of
 *     the item (a CAS check compares one key's values only; a pool of memcached servers may give two keys on
 *     different servers the same value)
 * @param expiresAt when the item expires, in milliseconds since the Unix epoch; {@link #NEVER} for never
 * @param lease its recache state, kept by a backend declaring {@link Capability#LEASES}; {@link Lease#NONE}
 *     elsewhere, and for every item a write makes (a touch and memcached's in-place arithmetic keep it)
 */
public record Item(byte[] value, int flags, long cas, long expiresAt, Lease lease) {
    /** {@link #expiresAt()} of an item that never expires. */
    public static final long NEVER = 0;

    public Item {
        if (value == null) {
            throw new IllegalArgumentException("value must not be null");
        }
        if (lease == null) {
            throw new IllegalArgumentException("lease must not be null");
        }
    }

    /** An item as a write makes it: neither stale nor handed out. */
    public Item(byte[] value, int flags, long cas, long expiresAt) {
        this(value, flags, cas, expiresAt, Lease.NONE);
    }

    /** Whether the item is expired at {@code nowMillis}; an expired item must behave exactly like a missing one. */
    public boolean isExpiredAt(long nowMillis) {
        return isExpiredAt(expiresAt, nowMillis);
    }

    /** Whether an item with this absolute expiry (or {@link #NEVER}) has expired at {@code nowMillis}. */
    public static boolean isExpiredAt(long expiresAt, long nowMillis) {
        return expiresAt != NEVER && expiresAt <= nowMillis;
    }
}
