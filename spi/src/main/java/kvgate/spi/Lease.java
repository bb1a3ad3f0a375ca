package kvgate.spi;

/**
 * An item's recache state, as memcached keeps it for its meta commands: whether the item is stale, and whether a
 * client has been handed the right to recache it (memcached's win token). Only a backend declaring
 * {@link Capability#LEASES} keeps it; every other backend's items are {@link #NONE}.
 *
 * <p>A client that wins is told so once ({@code W}); until the item is written again every other client is told
 * that another has it ({@code Z}), and may serve the data it has (stale or not) instead of asking the source
 * behind the cache. This keeps a popular key that expires or is invalidated from sending every client to that
 * source at once.
 */
public enum Lease {
    /** Neither stale nor handed out: as every item is when written. */
    NONE,
    /** Handed out: a client has won the right to recache the item. */
    WON,
    /** Marked stale (memcached's {@code md} or {@code ms} with {@code I}), not yet handed out: the next get wins. */
    STALE,
    /** Marked stale and handed out. */
    STALE_WON;

    /** Whether the item is marked stale. */
    public boolean stale() {
        return this == STALE || this == STALE_WON;
    }

    /** Whether a client has won the right to recache the item since it was written or marked stale. */
    public boolean won() {
        return this == WON || this == STALE_WON;
    }

    /** The state with the right to recache handed out. */
    public Lease handedOut() {
        return stale() ? STALE_WON : WON;
    }
}
