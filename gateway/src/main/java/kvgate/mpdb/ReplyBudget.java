package kvgate.mpdb;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import java.net.InetAddress;
import java.time.Duration;
import java.util.function.LongSupplier;

/**
 * What the MPDB listener may send to each source address, so that it cannot be turned into a reflector. A UDP
 * request's source address can be forged: a small GET naming a large value, sent with a victim's address, makes a
 * server that answers blindly send the value to the victim (memcached's UDP port amplified such traffic 50,000 times
 * in 2018). Each source (by IP address, whatever its port) has a bucket of bytes: it starts with {@code burst}, fills
 * by {@code ratio} bytes for every byte the source sends and by {@code rate} bytes a second, up to {@code burst}; a
 * reply goes only if the bucket holds its size. A forged stream then earns its victim at most {@code ratio} times
 * its own bytes and {@code rate} a second; a real client, whose requests come back on the same path, is held back
 * only when it reads more than that, and its reliable delivery resends what was held back.
 *
 * <p>Used on the listener's one event loop only. Sources are forgotten after a minute without datagrams, and at
 * most {@link #MAX_SOURCES} are held: a forgotten source starts again with a full bucket.
 */
final class ReplyBudget {
    static final long MAX_SOURCES = 100_000;

    private final double ratio;
    private final double ratePerNano;
    private final double burst;
    private final LongSupplier nanos;
    private final Cache<InetAddress, Bucket> sources;

    private static final class Bucket {
        double bytes;
        long filledAt;
    }

    /**
     * @param ratio reply bytes earned by each byte received from a source
     * @param ratePerSecond reply bytes a source earns each second whatever it sends
     * @param burst the most a source's bucket holds, and what it starts with
     */
    ReplyBudget(double ratio, long ratePerSecond, long burst, LongSupplier nanos) {
        this.ratio = ratio;
        this.ratePerNano = ratePerSecond / 1e9;
        this.burst = burst;
        this.nanos = nanos;
        this.sources = Caffeine.newBuilder()
                .executor(Runnable::run)
                .expireAfterAccess(Duration.ofMinutes(1))
                .maximumSize(MAX_SOURCES)
                .build();
    }

    private Bucket bucket(InetAddress source) {
        long now = nanos.getAsLong();
        Bucket bucket = sources.get(source, address -> {
            Bucket fresh = new Bucket();
            fresh.bytes = burst;
            fresh.filledAt = now;
            return fresh;
        });
        bucket.bytes = Math.min(burst, bucket.bytes + (now - bucket.filledAt) * ratePerNano);
        bucket.filledAt = now;
        return bucket;
    }

    /** A datagram of {@code bytes} came from {@code source}. */
    void received(InetAddress source, int bytes) {
        Bucket bucket = bucket(source);
        bucket.bytes = Math.min(burst, bucket.bytes + ratio * bytes);
    }

    /** Whether a reply of {@code bytes} may go to {@code source}; if so, its size is taken from the bucket. */
    boolean mayReply(InetAddress source, int bytes) {
        Bucket bucket = bucket(source);
        if (bucket.bytes < bytes) {
            return false;
        }
        bucket.bytes -= bytes;
        return true;
    }
}
