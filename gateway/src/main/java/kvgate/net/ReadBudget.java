package kvgate.net;

import io.netty.util.internal.PlatformDependent;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The memory every connection's partly read request may hold together, over all protocols: a set's header and the
 * part of its value that has come, a line without its end. Each connection is bounded on its own (one frame of
 * {@code max_item_size}), but thousands of connections each holding most of a large value would together take all
 * of the direct memory, and a network thread waiting for memory stalls every connection it serves. So, as Envoy's
 * overload manager resets streams, the gateway sheds: when the total passes the budget, the connections whose
 * partial requests have waited longest since their last byte are answered with their protocol's error and closed,
 * until the total is back under {@link #RESUME} of the budget. The connection whose read passed it is never among
 * them: it is the one making progress, and completing its request frees what it holds.
 *
 * <p>A decoder accounts for what it holds after each read burst, and only when it holds something, so a connection
 * whose requests arrive whole costs the budget nothing.
 */
public final class ReadBudget {
    /** The part of the budget shedding brings the total back under, so that one shed is not followed by another. */
    public static final double RESUME = 0.75;
    /** No budget: nothing is accounted or shed. */
    public static final ReadBudget NONE = new ReadBudget(0);

    private final long limit;
    private final long resume;
    private final AtomicLong held = new AtomicLong();
    private final AtomicLong shed = new AtomicLong();
    private final Set<SkippingFrameDecoder> holders = ConcurrentHashMap.newKeySet();

    /** @param limit bytes; 0 for no budget */
    public ReadBudget(long limit) {
        this.limit = limit;
        this.resume = (long) (limit * RESUME);
    }

    /** The budget {@code read_budget} sets: that many bytes, or with 0 the {@link #defaultLimit} of this JVM. */
    public static ReadBudget of(long setting) {
        return new ReadBudget(setting > 0 ? setting : defaultLimit(PlatformDependent.maxDirectMemory()));
    }

    /**
     * The budget a gateway gets by default: a quarter of the direct memory the JVM allows (Netty's count of it, from
     * {@code -XX:MaxDirectMemorySize} or the largest heap), leaving the rest for reads under way, replies and the
     * backends' connections.
     */
    public static long defaultLimit(long maxDirectMemory) {
        return Math.max(16L << 20, maxDirectMemory / 4);
    }

    public long limit() {
        return limit;
    }

    /** Bytes held by partly read requests now. */
    public long held() {
        return held.get();
    }

    /** Connections shed since the start. */
    public long shed() {
        return shed.get();
    }

    boolean enabled() {
        return limit > 0;
    }

    /**
     * A decoder's partial request now holds {@code bytes} (0 when it holds none); called on its connection's thread
     * after a read, and when the connection closes. Passing the budget sheds others.
     */
    void account(SkippingFrameDecoder decoder, long bytes) {
        long before = decoder.accounted.getAndSet(bytes);
        if (bytes == before) {
            return;
        }
        if (bytes > 0) {
            holders.add(decoder);
        } else {
            holders.remove(decoder);
        }
        long total = held.addAndGet(bytes - before);
        if (bytes > before && total > limit) {
            shedFor(decoder);
        }
    }

    /** A holder and when its partial request last grew. */
    private record Waiting(SkippingFrameDecoder decoder, long since) {
    }

    /** Sheds the stalest holders but {@code reading} until the total is under the resume mark. */
    private synchronized void shedFor(SkippingFrameDecoder reading) {
        if (held.get() <= limit) {
            return; // another read's shedding got there first
        }
        // Each one's progress read once: other threads move it on while this sorts.
        List<Waiting> candidates = new ArrayList<>(holders.size());
        for (SkippingFrameDecoder holder : holders) {
            if (holder != reading) {
                candidates.add(new Waiting(holder, holder.lastProgress()));
            }
        }
        candidates.sort(Comparator.comparingLong(Waiting::since));
        for (Waiting waiting : candidates) {
            SkippingFrameDecoder victim = waiting.decoder();
            if (held.get() <= resume) {
                return;
            }
            // Taken out of the total at once, though its memory is freed only when its connection closes on its
            // own thread: the next read must not shed another for the same bytes.
            long freed = victim.accounted.getAndSet(0);
            if (freed > 0) {
                holders.remove(victim);
                held.addAndGet(-freed);
                shed.incrementAndGet();
                victim.shed();
            }
        }
    }
}
