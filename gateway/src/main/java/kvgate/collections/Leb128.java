package kvgate.collections;

import java.util.Arrays;

/**
 * The unsigned LEB128 collection-id prefix of a document key on a collections connection: seven bits per byte, low
 * bits first, the high bit set on every byte but the last. Only the canonical (shortest) form of a 32-bit id is
 * accepted, in at most five bytes; anything else is invalid input, as Couchbase servers treat it.
 */
public final class Leb128 {
    /** A 32-bit id needs at most five 7-bit groups. */
    public static final int MAX_LENGTH = 5;
    /** {@link #decode}'s answer for an invalid prefix. */
    public static final long INVALID = -1;

    private Leb128() {
    }

    /**
     * Decodes the prefix of {@code key}: the collection id in the low 32 bits and the prefix length above them (see
     * {@link #id} and {@link #length}), or {@link #INVALID} when there is no stop byte within five bytes, the form is
     * not the shortest, or the id does not fit 32 bits. Packed in a long so the data path allocates nothing.
     */
    public static long decode(byte[] key) {
        long id = 0;
        int limit = Math.min(key.length, MAX_LENGTH);
        for (int i = 0; i < limit; i++) {
            int b = key[i] & 0xff;
            id |= (long) (b & 0x7f) << (7 * i);
            if ((b & 0x80) == 0) {
                // A zero stop byte after other bytes adds nothing: a longer form of a shorter encoding.
                boolean canonical = i == 0 || b != 0;
                if (!canonical || id > 0xffff_ffffL) {
                    return INVALID;
                }
                return ((long) (i + 1) << 32) | id;
            }
        }
        return INVALID;
    }

    /** The collection id of a valid {@link #decode} result. */
    public static long id(long decoded) {
        return decoded & 0xffff_ffffL;
    }

    /** The prefix length, in bytes, of a valid {@link #decode} result. */
    public static int length(long decoded) {
        return (int) (decoded >>> 32);
    }

    /** The canonical encoding of a 32-bit id. */
    public static byte[] encode(long id) {
        if (id < 0 || id > 0xffff_ffffL) {
            throw new IllegalArgumentException("collection id out of 32-bit range: " + id);
        }
        byte[] buffer = new byte[MAX_LENGTH];
        int length = 0;
        long rest = id;
        do {
            int group = (int) (rest & 0x7f);
            rest >>>= 7;
            buffer[length++] = (byte) (rest == 0 ? group : group | 0x80);
        } while (rest != 0);
        return Arrays.copyOf(buffer, length);
    }
}
