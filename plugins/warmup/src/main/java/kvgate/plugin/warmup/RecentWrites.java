package kvgate.plugin.warmup;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What this gateway knows of the writes to each key, so that a copy from the old store into the new one (a fill)
 * never puts back a value a write has replaced or deleted meanwhile. A fill reads the old store at some moment
 * ({@link #now()}) and may add its copy to the new store only if no write of that key started or ended since and
 * none is under way ({@link #beginFill}); a write that starts while a fill's copy is travelling waits for it to land
 * ({@link #beginWrite}), so the write always lands after it, and learns whether the copy was taken back.
 *
 * <p>Bounded: each of {@value #STRIPES} stripes remembers its share of the most recently written keys and forgets
 * the oldest idle ones beyond it. Forgetting a key raises the stripe's watermark to that key's last write, and a fill
 * that began before the watermark is refused for every key of the stripe it no longer remembers: forgetting makes
 * fills more cautious, never less. A flush counts as a write of every key.
 */
final class RecentWrites {
    private static final int STRIPES = 64;

    /** Ticks once per write start: a fill compares its own start with the last write of its key. */
    private final AtomicLong clock = new AtomicLong();
    private final AtomicLong lastFlush = new AtomicLong();
    private final AtomicInteger flushesUnderWay = new AtomicInteger();
    private final Stripe[] stripes = new Stripe[STRIPES];

    /** @param capacity how many keys to remember, over all stripes */
    RecentWrites(int capacity) {
        int perStripe = Math.max(1, capacity / STRIPES);
        for (int i = 0; i < STRIPES; i++) {
            stripes[i] = new Stripe(perStripe);
        }
    }

    /** The moment a fill takes before it reads the old store. */
    long now() {
        return clock.get();
    }

    /**
     * A write of {@code key} starts. Completes when the fills of that key under way have landed (at once when there
     * are none), with whether any of them took its copy back: a write that read such a copy while warming its key
     * read an item the new store no longer holds. The caller then applies the write (or gives it up) and calls
     * {@link #endWrite} however it ended.
     */
    CompletionStage<Boolean> beginWrite(String key) {
        long stamp = clock.incrementAndGet();
        Stripe stripe = stripe(key);
        CompletableFuture<Boolean> fillsLanded;
        synchronized (stripe) {
            KeyState state = stripe.keys.remove(key);
            if (state == null) {
                state = new KeyState();
            }
            state.lastWrite = stamp;
            state.writes++;
            stripe.keys.put(key, state); // the most recently written last: forgotten last
            fillsLanded = state.fillsLanded;
            stripe.forgetBeyondCapacity();
        }
        return fillsLanded == null ? CompletableFuture.completedFuture(false) : fillsLanded;
    }

    /**
     * A write of {@code key} has ended. Its end is stamped as well as its start: a fill that read the old store
     * while the write was under way may have read the value the write then deleted from it.
     */
    void endWrite(String key) {
        long stamp = clock.incrementAndGet();
        Stripe stripe = stripe(key);
        synchronized (stripe) {
            KeyState state = stripe.keys.get(key);
            state.lastWrite = stamp;
            state.writes--;
        }
    }

    /** A flush starts: every fill that began before it is refused, and so is every fill while it is under way. */
    void beginFlush() {
        flushesUnderWay.incrementAndGet();
        lastFlush.set(clock.incrementAndGet());
    }

    void endFlush() {
        flushesUnderWay.decrementAndGet();
    }

    /**
     * Whether a fill of {@code key} that read the old store after {@code start} may add its copy: no write of the key
     * (or flush) started or ended since and none is under way. When it may, writes of the key wait until
     * {@link #endFill}.
     */
    boolean beginFill(String key, long start) {
        if (flushesUnderWay.get() > 0 || lastFlush.get() > start) {
            return false;
        }
        Stripe stripe = stripe(key);
        synchronized (stripe) {
            KeyState state = stripe.keys.get(key);
            if (state == null) {
                if (stripe.watermark > start) {
                    return false;
                }
                state = new KeyState();
                stripe.keys.put(key, state);
            } else if (state.writes > 0 || state.lastWrite > start) {
                return false;
            }
            if (state.fills++ == 0) {
                state.fillsLanded = new CompletableFuture<>();
            }
            stripe.forgetBeyondCapacity();
            return true;
        }
    }

    /**
     * Whether a flush started after {@code start}: asked by a fill whose copy has landed, which then takes its copy
     * back, since a flush does not wait for the fills under way as a write of the key does.
     */
    boolean flushedSince(long start) {
        return lastFlush.get() > start;
    }

    /** A fill that {@link #beginFill} let through has ended: its copy landed, or was taken back when {@code undone}. */
    void endFill(String key, boolean undone) {
        Stripe stripe = stripe(key);
        CompletableFuture<Boolean> landed = null;
        boolean anyUndone = false;
        synchronized (stripe) {
            KeyState state = stripe.keys.get(key);
            state.fillUndone |= undone;
            if (--state.fills == 0) {
                landed = state.fillsLanded;
                anyUndone = state.fillUndone;
                state.fillsLanded = null;
                state.fillUndone = false;
            }
        }
        if (landed != null) {
            landed.complete(anyUndone);
        }
    }

    private Stripe stripe(String key) {
        // The top bits of a multiplicative hash: the low bits of the product are only the low bits of hashCode.
        return stripes[(key.hashCode() * 0x9E3779B9) >>> (Integer.SIZE - Integer.numberOfTrailingZeros(STRIPES))];
    }

    /** One key's writes: when the last one started or ended, and the writes and fills under way. */
    private static final class KeyState {
        long lastWrite;
        int writes;
        int fills;
        /** Completed when the fills under way have landed, with whether any was undone; null when there are none. */
        CompletableFuture<Boolean> fillsLanded;
        /** Whether a fill under way has taken its copy back. */
        boolean fillUndone;

        boolean idle() {
            return writes == 0 && fills == 0;
        }
    }

    private static final class Stripe {
        final int capacity;
        /** In order of their last write (fills of unwritten keys enter too), the oldest first. */
        final LinkedHashMap<String, KeyState> keys = new LinkedHashMap<>();
        /** The latest write (start or end) among the keys forgotten. */
        long watermark;

        Stripe(int capacity) {
            this.capacity = capacity;
        }

        /** Forgets the oldest idle keys beyond the capacity; keys with a write or fill under way are kept. */
        void forgetBeyondCapacity() {
            Iterator<Map.Entry<String, KeyState>> oldestFirst = keys.entrySet().iterator();
            while (keys.size() > capacity && oldestFirst.hasNext()) {
                KeyState state = oldestFirst.next().getValue();
                if (state.idle()) {
                    watermark = Math.max(watermark, state.lastWrite);
                    oldestFirst.remove();
                }
            }
        }
    }
}
