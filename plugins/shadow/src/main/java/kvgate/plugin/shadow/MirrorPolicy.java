package kvgate.plugin.shadow;

import java.util.Locale;
import kvgate.spi.Operation;

/**
 * Which operations a shadow node mirrors. The share of keys is chosen by a hash of the key alone, so a key's reads
 * and writes are either all mirrored or none: the shadow holds exactly the mirrored keys, and a mirrored read finds
 * there what the mirrored writes put there. The hash is fixed, so every gateway and every restart picks the same
 * keys. Operations without a key are never mirrored by share: a flush goes to the shadow always or never
 * ({@code flushes}); scans, tag queries and searches never, as their answers cover keys that were not mirrored.
 *
 * @param kinds which kinds of key operation are mirrored
 * @param fraction the share of keys mirrored, 0.0 to 1.0
 * @param flushes whether a flush is mirrored (when writes are)
 */
record MirrorPolicy(Kinds kinds, double fraction, boolean flushes) {

    /** The kinds of operation mirrored: reads (get), writes (everything that changes an item or the store), or both. */
    enum Kinds {
        ALL, READS, WRITES;

        static Kinds parse(String value) {
            return valueOf(value.toUpperCase(Locale.ROOT));
        }

        String setting() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    private static final String RANGE = ShadowRouteFactory.FRACTION + " must be a number from 0.0 to 1.0";

    MirrorPolicy {
        if (!(fraction >= 0.0 && fraction <= 1.0)) {
            throw new IllegalArgumentException(RANGE + ", not " + fraction);
        }
    }

    /**
     * The policy of a node's settings.
     *
     * @throws IllegalArgumentException naming the setting when {@code fraction} is not a number from 0.0 to 1.0
     */
    static MirrorPolicy of(String kinds, String fraction, boolean flushes) {
        double share;
        try {
            share = Double.parseDouble(fraction.strip());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(RANGE + ", not '" + fraction + "'");
        }
        return new MirrorPolicy(Kinds.parse(kinds), share, flushes);
    }

    /** Whether {@code operation} goes to the shadow too. */
    boolean mirrors(Operation operation) {
        if (operation instanceof Operation.Flush) {
            return flushes && kinds != Kinds.READS;
        }
        byte[] key = keyOf(operation);
        if (key == null) {
            return false;
        }
        boolean read = Operation.readsItem(operation);
        if (read ? kinds == Kinds.WRITES : kinds == Kinds.READS) {
            return false;
        }
        return chosen(key, fraction);
    }

    /**
     * The key an operation reads or changes, or null for one on a whole namespace. Tagging and indexing change the
     * shadow's tag lists and search index, which its later answers depend on, so they are writes of their key.
     */
    static byte[] keyOf(Operation operation) {
        if (operation instanceof Operation.KeyOperation keyed) {
            return keyed.key();
        } else if (operation instanceof Operation.Tag tag) {
            return tag.key();
        } else if (operation instanceof Operation.Untag untag) {
            return untag.key();
        } else if (operation instanceof Operation.Index index) {
            return index.key();
        } else if (operation instanceof Operation.Unindex unindex) {
            return unindex.key();
        }
        return null;
    }

    /** Whether {@code key} is among the {@code fraction} of keys mirrored. */
    static boolean chosen(byte[] key, double fraction) {
        return position(key) < fraction;
    }

    /**
     * Where the key falls in [0, 1): 64-bit FNV-1a over the key's bytes, its bits mixed by MurmurHash3's finalizer
     * (FNV alone spreads keys that differ in the last byte poorly over the high bits), the top 53 bits as a fraction.
     */
    static double position(byte[] key) {
        long hash = 0xcbf29ce484222325L;
        for (byte b : key) {
            hash ^= b & 0xff;
            hash *= 0x100000001b3L;
        }
        hash ^= hash >>> 33;
        hash *= 0xff51afd7ed558ccdL;
        hash ^= hash >>> 33;
        hash *= 0xc4ceb9fe1a85ec53L;
        hash ^= hash >>> 33;
        return (hash >>> 11) * 0x1.0p-53;
    }

    /**
     * Whether a write carries a CAS of the primary's. The shadow's CAS values are its own, so such a write cannot
     * be checked there: it is mirrored without the CAS, and only once the primary has accepted it.
     */
    static boolean checksCas(Operation operation) {
        if (operation instanceof Operation.Store store) {
            return store.cas() != 0;
        } else if (operation instanceof Operation.Delete delete) {
            return delete.cas() != 0;
        } else if (operation instanceof Operation.Arithmetic arithmetic) {
            return arithmetic.cas() != 0;
        } else if (operation instanceof Operation.Invalidate invalidate) {
            return invalidate.cas() != 0;
        }
        return false;
    }

    /** The write of {@link #checksCas} without its CAS: what the shadow is sent once the primary accepted it. */
    static Operation withoutCas(Operation operation) {
        if (operation instanceof Operation.Store s) {
            // A stale set's CAS is what makes it stale: without it, the shadow's copy is a plain write.
            return new Operation.Store(s.namespace(), s.key(), s.mode(), s.value(), s.flags(), s.expiresAt(), 0,
                    s.keepExpiry(), false, s.chosenCas());
        } else if (operation instanceof Operation.Delete d) {
            return new Operation.Delete(d.namespace(), d.key(), 0);
        } else if (operation instanceof Operation.Arithmetic a) {
            return new Operation.Arithmetic(a.namespace(), a.key(), a.increment(), a.delta(), a.initial(),
                    a.createIfMissing(), a.expiresAt(), 0, a.touchExpiresAt(), a.chosenCas());
        } else if (operation instanceof Operation.Invalidate i) {
            return new Operation.Invalidate(i.namespace(), i.key(), 0, i.expiresAt(), i.chosenCas());
        }
        return operation;
    }
}
