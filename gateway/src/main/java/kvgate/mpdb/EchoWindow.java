package kvgate.mpdb;

import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * One client's reliable-delivery state: which echo tag runs next, the messages that arrived ahead of it, the replies
 * to the last ones run, and the tags given up on. It decides only; the caller runs the messages, keeps the timer and
 * sends the replies. Not thread-safe: one event loop drives it.
 *
 * <p>The rules (the protocol document's, with what it leaves open decided):
 * <ul>
 *   <li>Messages run one at a time, in echo order. At most {@code window} tags ahead of the last one run are
 *       buffered; later ones are dropped (the client resends them).</li>
 *   <li>When the next tag is missing while a later one waits, the caller starts the server timeout; when it fires,
 *       {@link #skipGap()} gives up on the missing tags and the next waiting message runs. A skipped message that
 *       arrives after all runs then, out of order, as the document says ("until the missing message arrives").</li>
 *   <li>A tag already run is answered from the reply cache (the last {@code window} replies) and never run twice;
 *       one whose reply has left the cache is dropped.</li>
 *   <li>The first message of a client sets where its order starts: at 1 when its tag is within the window of 1 (a
 *       client starting up, whose first messages may arrive out of order), else at its tag (a client that talked
 *       to the gateway before its state expired or the gateway restarted).</li>
 *   <li>A tag already run arriving with a different content is no resend (a resend is the same datagram again): the
 *       client restarted and reuses its tags, and the state starts over. Tag 1 is told from a resend even after
 *       its reply has left the cache: the digest of the message that began the order is kept. (A client that
 *       restarts and sends the same first messages again is taken for a resender; the caller forgets a client
 *       whose datagrams have all been dropped for a while, and it then starts afresh.)</li>
 * </ul>
 *
 * @param <T> the message
 */
final class EchoWindow<T> {

    /** What became of an arriving message. */
    enum Arrival {
        /** Buffered until its turn (or, if it is next, to run now). */
        ACCEPTED,
        /** Already run: answer with {@link #cachedReply(long)}. */
        REPLAY,
        /** Already buffered or running: nothing to do. */
        DUPLICATE,
        /** Run so long ago that its reply has left the cache: dropped. */
        STALE,
        /** Beyond the window: dropped. */
        BEYOND_WINDOW
    }

    /** A message whose turn has come. */
    record Turn<T>(long echo, T message, int generation) {
    }

    private record Waiting<T>(T message, int size, int digest) {
    }

    private record Cached(byte[] reply, int digest) {
    }

    /** Bytes of bookkeeping per message held, beside its own size, in {@link #weight()}. */
    private static final int OVERHEAD = 64;

    private final int window;
    /**
     * The tag that runs next in order; 0 before the first message. Unsigned: once the largest tag a datagram can
     * carry, 2^63 - 1, has run, it is 2^63 (held as {@link Long#MIN_VALUE}), and every tag lies below it.
     */
    private long next;
    /** The digest of the tag-1 message that began the order; null when the order began further along. */
    private Integer firstDigest;
    /** The tag running now, 0 for none. */
    private long running;
    private final TreeMap<Long, Waiting<T>> waiting = new TreeMap<>();
    /** Skipped messages that arrived after all, to run before the next in order. */
    private final ArrayDeque<Map.Entry<Long, Waiting<T>>> late = new ArrayDeque<>();
    /** Tags given up on, the latest {@code window} of them. */
    private final TreeSet<Long> skipped = new TreeSet<>();
    private final LinkedHashMap<Long, Cached> replies = new LinkedHashMap<>();
    /** The digest of the running message (for the reply cache). */
    private int runningDigest;
    /** How many times the state started over; a turn of an earlier life is not cached. */
    private int generation;
    private long bytes;

    EchoWindow(int window) {
        if (window < 1) {
            throw new IllegalArgumentException("window must be at least 1");
        }
        this.window = window;
    }

    /**
     * Takes an arriving message.
     *
     * @param size what it holds in memory while it waits, in bytes, counted in {@link #weight()}
     * @param digest a digest of its content, telling a resend from a new message under a reused tag
     */
    Arrival offer(long echo, T message, int size, int digest) {
        if (next == 0) {
            next = echo <= window ? 1 : echo;
        }
        if (Long.compareUnsigned(echo, next) < 0) {
            Cached cached = replies.get(echo);
            if (cached != null && cached.digest() == digest) {
                return Arrival.REPLAY;
            }
            if (echo == running || late.stream().anyMatch(entry -> entry.getKey() == echo)) {
                return Arrival.DUPLICATE;
            }
            if (skipped.remove(echo)) {
                late.add(Map.entry(echo, new Waiting<>(message, size, digest)));
                bytes += size + OVERHEAD;
                return Arrival.ACCEPTED;
            }
            boolean reused = cached != null || echo == 1 && (firstDigest == null || firstDigest != digest);
            if (!reused) {
                return Arrival.STALE;
            }
            restart();
        }
        if (waiting.containsKey(echo)) {
            return Arrival.DUPLICATE;
        }
        if (echo - next >= window) {
            return Arrival.BEYOND_WINDOW;
        }
        if (echo == 1) {
            firstDigest = digest;
        }
        waiting.put(echo, new Waiting<>(message, size, digest));
        bytes += size + OVERHEAD;
        return Arrival.ACCEPTED;
    }

    /** Forgets everything but a running message (whose reply will be sent, but not cached). */
    private void restart() {
        next = 1;
        firstDigest = null;
        waiting.clear();
        late.clear();
        skipped.clear();
        replies.clear();
        running = 0;
        bytes = 0;
        generation++;
    }

    /** The message to run now, or null while one runs or the next in order has not arrived. */
    Turn<T> take() {
        if (running != 0) {
            return null;
        }
        Map.Entry<Long, Waiting<T>> entry = late.poll();
        if (entry == null) {
            entry = waiting.firstEntry();
            if (entry == null || entry.getKey() != next) {
                return null;
            }
            waiting.pollFirstEntry();
            next++;
        }
        running = entry.getKey();
        runningDigest = entry.getValue().digest();
        bytes -= entry.getValue().size() + OVERHEAD;
        return new Turn<>(entry.getKey(), entry.getValue().message(), generation);
    }

    /**
     * The message of {@code turn} has run and {@code reply} answered it. A message that was running when the state
     * started over is not cached: its tag belongs to the client's earlier life.
     */
    void finished(Turn<T> turn, byte[] reply) {
        long echo = turn.echo();
        if (turn.generation() != generation || echo != running) {
            return;
        }
        running = 0;
        Cached old = replies.put(echo, new Cached(reply, runningDigest));
        if (old != null) {
            bytes -= old.reply().length + OVERHEAD;
        }
        bytes += reply.length + OVERHEAD;
        Iterator<Map.Entry<Long, Cached>> eldest = replies.entrySet().iterator();
        while (replies.size() > window) {
            bytes -= eldest.next().getValue().reply().length + OVERHEAD;
            eldest.remove();
        }
    }

    /** A cached reply, after {@link Arrival#REPLAY}. */
    byte[] cachedReply(long echo) {
        return replies.get(echo).reply();
    }

    /** The tag whose absence holds up a waiting message, or 0 when nothing is held up. */
    long gap() {
        if (running != 0 || !late.isEmpty() || waiting.isEmpty() || waiting.firstKey() == next) {
            return 0;
        }
        return next;
    }

    /** Gives up on the missing tags before the first waiting message, so that it runs next. */
    void skipGap() {
        if (gap() == 0) {
            return;
        }
        long first = waiting.firstKey();
        for (long echo = next; echo < first; echo++) {
            skipped.add(echo);
        }
        while (skipped.size() > window) {
            skipped.pollFirst();
        }
        next = first;
    }

    /** Bytes of messages and replies held, with bookkeeping: what this client costs. */
    int weight() {
        return (int) Math.min(Integer.MAX_VALUE, bytes + OVERHEAD * (1 + skipped.size()));
    }
}
