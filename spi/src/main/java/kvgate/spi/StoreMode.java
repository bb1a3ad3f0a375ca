package kvgate.spi;

/** What a {@link Operation.Store} requires of the item already there. */
public enum StoreMode {
    /** Store whether or not the key exists. */
    SET,
    /** Store only if the key does not exist; otherwise {@link Status#EXISTS}. */
    ADD,
    /** Store only if the key exists; otherwise {@link Status#NOT_FOUND}. */
    REPLACE,
    /**
     * Add the bytes after the existing value, keeping its flags and expiry; a missing key is
     * {@link Status#NOT_STORED}.
     */
    APPEND,
    /**
     * Add the bytes before the existing value, keeping its flags and expiry; a missing key is
     * {@link Status#NOT_STORED}.
     */
    PREPEND
}
