package kvgate.route.generic;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The value format of a key list kept as an ordinary item (a tag's keys, an n-gram's postings, a shard of a
 * namespace's key directory): a log of entries, each {@code '+'} or {@code '-'}, a 4-byte big-endian length and the
 * key. Writers only ever append entries, which every backend does atomically, so concurrent writers in any number
 * of gateways never lose each other's keys; a reader replays the log. Rewriting the log compactly is done with a
 * CAS store, which fails (and is simply skipped) when anything was appended meanwhile.
 */
public final class KeyLog {
    private static final byte ADDED = '+';
    private static final byte REMOVED = '-';
    private static final int HEADER = 5;

    private KeyLog() {
    }

    /** The entries saying {@code keys} were added. */
    static byte[] added(List<byte[]> keys) {
        return entries(ADDED, keys);
    }

    /** The entries saying {@code keys} were removed. */
    static byte[] removed(List<byte[]> keys) {
        return entries(REMOVED, keys);
    }

    /** A compact log listing exactly {@code keys}, in their order. */
    static byte[] listing(Collection<byte[]> keys) {
        return entries(ADDED, keys);
    }

    private static byte[] entries(byte kind, Collection<byte[]> keys) {
        int length = 0;
        for (byte[] key : keys) {
            length += HEADER + key.length;
        }
        ByteBuffer log = ByteBuffer.allocate(length);
        for (byte[] key : keys) {
            log.put(kind).putInt(key.length).put(key);
        }
        return log.array();
    }

    /**
     * The keys a log lists now, in the order they were first added (a key removed and added again moves to the
     * end), and how many entries it took to say so. A log cut short or garbled is read up to the damage: a key list
     * is an index, and losing its tail is better than refusing every read of it.
     */
    static Replay replay(byte[] log) {
        return replay(new LinkedHashSet<>(), 0, log);
    }

    private static Replay replay(Set<String> keys, int entries, byte[] log) {
        ByteBuffer buffer = ByteBuffer.wrap(log);
        while (buffer.remaining() >= HEADER) {
            byte kind = buffer.get();
            int length = buffer.getInt();
            if ((kind != ADDED && kind != REMOVED) || length < 0 || length > buffer.remaining()) {
                break;
            }
            byte[] key = new byte[length];
            buffer.get(key);
            String name = new String(key, StandardCharsets.ISO_8859_1);
            if (kind == ADDED) {
                keys.add(name);
            } else {
                keys.remove(name);
            }
            entries++;
        }
        return new Replay(keys, entries);
    }

    /**
     * A replayed log.
     *
     * @param keys the listed keys as ISO-8859-1 strings (one character per byte), which compare and hash by content
     * @param entries how many entries the log holds
     */
    record Replay(Set<String> keys, int entries) {
        static final Replay EMPTY = new Replay(Set.of(), 0);

        /** This replay with the entries of {@code log} replayed after it; this one is left as it is. */
        Replay then(byte[] log) {
            return replay(new LinkedHashSet<>(keys), entries, log);
        }

        boolean contains(byte[] key) {
            return keys.contains(name(key));
        }

        /** Whether rewriting the log compactly would save much: many removals or repeats. */
        boolean wasteful() {
            return entries > 2 * keys.size() + 16;
        }

        static String name(byte[] key) {
            return new String(key, StandardCharsets.ISO_8859_1);
        }

        /** The keys named by {@code names} (as {@link #keys()} holds them), in the same order. */
        static List<byte[]> bytes(Collection<String> names) {
            List<byte[]> keys = new ArrayList<>(names.size());
            for (String name : names) {
                keys.add(name.getBytes(StandardCharsets.ISO_8859_1));
            }
            return keys;
        }
    }
}
