package kvgate.backend.redis;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import kvgate.spi.Namespace;

/**
 * Where things live in Redis: every key this backend uses is built here. Every key starts with {@code kvgate:} and
 * a letter for its kind, then a hash tag ({@code {...}}) that decides its cluster slot:
 *
 * <ul>
 *   <li>{@code kvgate:i{<namespace>#<shard>}<key>}: an item;</li>
 *   <li>{@code kvgate:x{<namespace>#<shard>}}: the index shard listing the keys of that namespace and shard, a
 *       sorted set scored by each item's expiry in epoch milliseconds ({@code +inf} for never);</li>
 *   <li>{@code kvgate:m{<namespace>#<shard>}}: the highest CAS handed out in that namespace and shard, a string
 *       (kept through flushes, so that no CAS of the shard repeats);</li>
 *   <li>{@code kvgate:s{<namespace>#<shard>}<key>}: an item's {@link kvgate.spi.Lease}, its code as a string, with
 *       the item's expiry; absent for {@link kvgate.spi.Lease#NONE}, as a write of a new value leaves it;</li>
 *   <li>{@code kvgate:t{<namespace>#<tag>}}: a tag's keys, a sorted set scored in the order they were tagged;</li>
 *   <li>{@code kvgate:g{<namespace>#<group length>:<group>}<gram>}: the keys whose value held an n-gram, a set;</li>
 *   <li>{@code kvgate:c{<namespace>#<name>}} and {@code kvgate:l{<namespace>#<name>}}: a counter and its leases;</li>
 *   <li>{@code kvgate:d{<namespace>}}: the names of a namespace's counters, for dumps;</li>
 *   <li>{@code kvgate:layout}: this layout's {@link #VERSION}.</li>
 * </ul>
 *
 * <p>An item and the index shard that lists it share a hash tag, so one script creates or removes both atomically
 * on a cluster. A namespace spreads over {@link #SHARDS} shards, each its own slot, so one busy namespace (the
 * default one) is still spread over the cluster, while a scan or flush visits a fixed number of sets instead of the
 * keyspace. Namespace names hold no {@code #} or braces, so no two (namespace, shard) pairs share a tag.
 *
 * <p>Every tag is its own slot. All grams of one index group of a namespace share one slot, so a search intersects
 * or unites them in Redis with one SINTER; the price is that one index group lives on one node. A brace inside a
 * tag or group ends the hash tag early, identically for every key that must share the slot, so it stays correct.
 */
final class KeyLayout {
    /**
     * Index shards per namespace. Part of the stored layout: changing it would orphan existing items, so it is part
     * of {@link #VERSION}, which a gateway finding another one in Redis refuses to start with.
     */
    static final int SHARDS = 1024;

    /** The layout this code reads and writes, stored under {@link #LAYOUT}. */
    static final String VERSION = "1 shards=" + SHARDS;

    static final byte[] LAYOUT = utf8("kvgate:layout");

    private KeyLayout() {
    }

    /** The shard of a key: stable across processes and versions (Arrays.hashCode is specified). */
    static int shardOf(byte[] key) {
        return Math.floorMod(Arrays.hashCode(key), SHARDS);
    }

    /** A key of one kind ({@code i}, {@code s}, {@code x}, {@code m}) of one namespace shard, in that shard's slot. */
    private static byte[] ofShard(char kind, Namespace namespace, int shard) {
        return utf8("kvgate:" + kind + "{" + namespace.name() + "#" + shard + "}");
    }

    /** The prefix of every item key of one namespace shard; the item key is this followed by the client's key. */
    static byte[] itemPrefix(Namespace namespace, int shard) {
        return ofShard('i', namespace, shard);
    }

    static byte[] itemKey(Namespace namespace, byte[] key) {
        return concat(itemPrefix(namespace, shardOf(key)), key);
    }

    /** The prefix of the lease keys of one namespace shard, as {@link #itemPrefix} is of its items. */
    static byte[] leasePrefix(Namespace namespace, int shard) {
        return ofShard('s', namespace, shard);
    }


    static byte[] indexShard(Namespace namespace, int shard) {
        return ofShard('x', namespace, shard);
    }


    /** The CAS mark of the shard a key is in. */
    static byte[] casMarkOf(Namespace namespace, byte[] key) {
        return ofShard('m', namespace, shardOf(key));
    }

    /**
     * The keys an item script takes, in its KEYS order: the item, its index shard, its shard's CAS mark and its
     * lease, the key's shard worked out once for all four.
     */
    static byte[][] ofItem(Namespace namespace, byte[] key) {
        int shard = shardOf(key);
        return new byte[][] {concat(itemPrefix(namespace, shard), key), indexShard(namespace, shard),
            ofShard('m', namespace, shard), concat(leasePrefix(namespace, shard), key)};
    }

    static byte[] tagKey(Namespace namespace, byte[] tag) {
        return concat(concat(utf8("kvgate:t{" + namespace.name() + "#"), tag), utf8("}"));
    }

    /** The group's length first, so that no two (group, gram) pairs share a key whatever characters they hold. */
    static byte[] gramKey(Namespace namespace, String group, String gram) {
        return utf8("kvgate:g{" + namespace.name() + "#" + group.length() + ":" + group + "}" + gram);
    }

    /** A counter's hash (consumption, maximum, what each owner holds). */
    static byte[] counter(Namespace namespace, byte[] name) {
        return concat(concat(utf8("kvgate:c{" + namespace.name() + "#"), name), utf8("}"));
    }

    /** A counter's leases, in its slot. */
    static byte[] counterLeases(Namespace namespace, byte[] name) {
        return concat(concat(utf8("kvgate:l{" + namespace.name() + "#"), name), utf8("}"));
    }

    /** The names of a namespace's counters. */
    static byte[] counterDirectory(Namespace namespace) {
        return utf8("kvgate:d{" + namespace.name() + "}");
    }

    static byte[] concat(byte[] a, byte[] b) {
        byte[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
