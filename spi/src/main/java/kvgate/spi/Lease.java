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
    NONE(0),
    /** Handed out: a client has won the right to recache the item. */
    WON(1),
    /** Marked stale (memcached's {@code md} or {@code ms} with {@code I}), not yet handed out: the next get wins. */
    STALE(2),
    /** Marked stale and handed out. */
    STALE_WON(3);

    private static final Lease[] BY_CODE = {NONE, WON, STALE, STALE_WON};

    private final int code;

    Lease(int code) {
        this.code = code;
    }

    /**
     * The lease as a store keeps it: 1 for handed out plus 2 for stale. Fixed, unlike the declaration order, so
     * that what a store wrote reads the same with any later version.
     */
    public int code() {
        return code;
    }

    /** The lease whose {@link #code()} this is. */
    public static Lease ofCode(int code) {
        if (code < 0 || code >= BY_CODE.length) {
            throw new IllegalArgumentException("no lease has code " + code);
        }
        return BY_CODE[code];
    }

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
