package kvgate.load;

import java.util.Locale;

/** The protocols the generator speaks, by the name given on its command line. */
public enum Protocol {
    /** memcached binary Get and Set. */
    BINARY,
    /** memcached binary Get and Set with Couchbase collections: HELLO, a manifest, LEB128 collection ids. */
    COLLECTIONS,
    /** The yrmcds counter protocol: an Acquire then a Release of the same name, over and over. */
    COUNTER,
    /** okuyama text lines: setValue, getValue and getMultiValue. */
    OKUYAMA,
    /** okuyama's lists: listRPush then listLPop of the same list, over lists made by the fill. */
    OKUYAMA_LISTS,
    /** okuyama's locks: lockData then releaseLockData of the same key, in a transaction (transaction mode on). */
    OKUYAMA_LOCKS,
    /** MPDB over UDP: INSERT and GET, each simulated client on its own socket with its own echo sequence. */
    MPDB;

    public String label() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /** Whether the protocol stores items, so that a key space can be filled before gets are sent. */
    public boolean storesItems() {
        return this != COUNTER && this != OKUYAMA_LOCKS;
    }

    public static Protocol named(String name) {
        for (Protocol protocol : values()) {
            if (protocol.label().equals(name)) {
                return protocol;
            }
        }
        throw new IllegalArgumentException(
                "unknown protocol " + name + " (binary, collections, counter, okuyama, okuyama-lists, "
                        + "okuyama-locks, mpdb)");
    }
}
