package kvgate.backend.memcached;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.List;

/**
 * Ketama consistent hashing as twemproxy ({@code distribution: ketama}, {@code hash: md5}) and libmemcached's
 * weighted ketama place keys, so a pool keeps its placement (and its hit rate) when clients move to the gateway.
 *
 * <p>Each server gets {@code floor(weight / totalWeight * 40 * servers) * 4} points on a 32-bit circle: for
 * {@code i} from 0, the MD5 of {@code "name-i"} (the name is {@code host:port}, or a socket's path and a colon,
 * unless the server was given one: see {@link ServerAddress}) gives four points, one per 4-byte group read
 * little-endian.
 * A key goes to the first point at or after the first 4 bytes (little-endian) of its MD5, wrapping around.
 */
public final class Ketama {
    private static final int POINTS_PER_SERVER = 160;
    private static final int POINTS_PER_HASH = 4;

    /** Digests are costly to look up and not thread-safe: one per thread, reused. */
    private static final ThreadLocal<MessageDigest> MD5 = ThreadLocal.withInitial(() -> {
        try {
            return MessageDigest.getInstance("MD5");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime has MD5", e);
        }
    });

    private final long[] points;
    private final int[] servers;
    /** A pool of one holds every key: no hash to compute. */
    private final boolean single;

    public Ketama(List<ServerAddress> pool) {
        long totalWeight = 0;
        for (ServerAddress server : pool) {
            totalWeight += server.weight();
        }
        int total = 0;
        int[] pointsOf = new int[pool.size()];
        for (int i = 0; i < pool.size(); i++) {
            float share = (float) pool.get(i).weight() / (float) totalWeight;
            pointsOf[i] = (int) (Math.floor(share * POINTS_PER_SERVER / POINTS_PER_HASH * (float) pool.size()
                    + 0.0000000001)) * POINTS_PER_HASH;
            total += pointsOf[i];
        }
        long[] packed = new long[total];
        int next = 0;
        for (int server = 0; server < pool.size(); server++) {
            ServerAddress address = pool.get(server);
            for (int index = 0; index < pointsOf[server] / POINTS_PER_HASH; index++) {
                byte[] digest = md5((address.name() + "-" + index)
                        .getBytes(StandardCharsets.UTF_8));
                for (int group = 0; group < POINTS_PER_HASH; group++) {
                    // Point in the high 32 bits, server in the low, sign bit flipped so that a signed sort
                    // orders by the unsigned point, then by server.
                    packed[next++] = ((littleEndian(digest, group) << 32) | server) ^ Long.MIN_VALUE;
                }
            }
        }
        Arrays.sort(packed);
        single = pool.size() == 1;
        points = new long[total];
        servers = new int[total];
        for (int i = 0; i < total; i++) {
            long entry = packed[i] ^ Long.MIN_VALUE;
            points[i] = entry >>> 32;
            servers[i] = (int) (entry & 0xffff_ffffL);
        }
    }

    /** The index, in the pool, of the server that holds {@code key}. */
    public int serverFor(byte[] key) {
        if (single) {
            return 0;
        }
        long hash = littleEndian(md5(key), 0);
        int low = 0;
        int high = points.length;
        while (low < high) {
            int middle = (low + high) >>> 1;
            if (points[middle] < hash) {
                low = middle + 1;
            } else {
                high = middle;
            }
        }
        return servers[low == points.length ? 0 : low];
    }

    private static long littleEndian(byte[] digest, int group) {
        int offset = group * 4;
        return (digest[offset] & 0xffL) | (digest[offset + 1] & 0xffL) << 8 | (digest[offset + 2] & 0xffL) << 16
                | (digest[offset + 3] & 0xffL) << 24;
    }

    private static byte[] md5(byte[] data) {
        return MD5.get().digest(data);
    }
}
