package kvgate.spi;

/**
 * What a backend offers beyond the basic operations of {@link Operation}, which every backend must implement.
 * The gateway reports capabilities at start-up and in its stats, and later fills absent ones generically on top of
 * the basic operations (so every protocol works on every backend); a backend that declares one does it natively.
 */
public enum Capability {
    /** Acknowledged items survive a restart of the gateway and of the backend's store. */
    DURABLE,
    /**
     * The backend's items, and the atomicity of its CAS checks and arithmetic, are shared by every gateway process
     * pointed at it (a remote store). Without it, each gateway process has a store of its own.
     */
    SHARED,
    /**
     * The backend keeps the counter protocol's resource counters: it executes {@link Operation.Acquire},
     * {@link Operation.Release}, {@link Operation.ReleaseAll}, {@link Operation.ReadCounter} and
     * {@link Operation.DumpCounters}, keeping the ledger of what each owner holds.
     */
    COUNTERS,
    /**
     * The backend executes a {@link Operation.Store} that keeps the expiry of the item it replaces
     * ({@link Operation.Store#keepExpiry()}), reading that expiry and writing the new item in one atomic step. A
     * backend applying {@link ItemTransition} has the work done by it, and need only declare this. Without it such
     * stores are refused: no generic layer can do it for a backend whose reads do not tell an item's expiry
     * (memcached's do not).
     */
    KEEP_EXPIRY,
    /** The backend lists a namespace's items itself: it executes {@link Operation.Scan}. */
    SCAN,
    /**
     * The backend keeps okuyama's tags itself: it executes {@link Operation.Tag}, {@link Operation.Untag} and
     * {@link Operation.TaggedKeys}.
     */
    TAGS,
    /**
     * The backend keeps the full-text index itself: it executes {@link Operation.Index} and
     * {@link Operation.Search}.
     */
    SEARCH,
    /**
     * The backend keeps each item's {@link Lease} (memcached's stale items and recache wins): it executes
     * {@link Operation.LeaseGet} and {@link Operation.Invalidate}, and a {@link Operation.Store} with
     * {@link Operation.Store#staleIfOlder()}, deciding each in the same atomic step as the item's other writes. A
     * backend applying {@link ItemTransition} has the work done by it, and need only keep the lease with the item.
     * Without it, memcached's meta flags that need the state are refused as memcached refuses a flag it does not
     * know.
     */
    LEASES,
    /**
     * The backend sets a counter's expiry with its arithmetic ({@link Operation.Arithmetic#touchExpiresAt()},
     * memcached's meta {@code ma} with {@code T}) and tells the expiry after it ({@link Result.Number#expiresAt()}).
     * A backend applying {@link ItemTransition} has it done by it. Without it, such arithmetic is refused, and so
     * are the meta flags that set or tell a counter's expiry.
     */
    ARITHMETIC_EXPIRY,
    /**
     * The backend gives an item the CAS a write chose ({@link Operation.KeyOperation#chosenCas()}, memcached's meta
     * {@code E}: a row version, a timestamp or a hash kept as the item's CAS) instead of one of its own. A backend
     * applying {@link ItemTransition} has it done by it. Without it, such writes are refused.
     */
    CHOSEN_CAS
}
