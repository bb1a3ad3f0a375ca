package kvgate.plugin.shadow;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import kvgate.spi.Namespace;
import kvgate.spi.Operation;

/**
 * Makes a mirrored read compare like with like. A client that writes a key on one connection and, once the write is
 * acknowledged, reads it on another expects the new value, and the primary gives it; but the two mirrored copies
 * travel to the shadow on the connections of two different threads, and the read could overtake the write there,
 * reporting a difference the stores do not have. So a mirrored read of a key waits until every mirrored write of the
 * key picked before it has been answered by the shadow (or dropped unsent), whatever thread it came from; writes
 * never wait for reads.
 *
 * <p>A flush (without a delay) is a write of every key of its namespace: a read of the namespace waits for the
 * mirrored flushes picked before it as for its key's writes.
 *
 * <p>What ordering cannot settle is a read that raced a write: one picked while a write of its key was still
 * unanswered by the primary, or one whose key was written again before its comparison. Either store may then
 * rightly hold either value, so a difference is counted as {@code undecidable}, not as a mismatch.
 *
 * <p>State is kept per key only while operations of the key are in flight; every path takes the key's entry in the
 * map's compute, so the checks and the counts never race.
 */
final class ReadOrder {
    private final ConcurrentHashMap<ItemKey, Key> keys = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<Namespace, Key> namespaces = new ConcurrentHashMap<>();

    /** One key's operations in flight. Read and changed only inside the map's compute of its key. */
    private static final class Key {
        /** Mirrored writes picked and not yet answered by the shadow (nor dropped). */
        int writesAtShadow;
        /** Mirrored writes picked whose primary has not answered. */
        int writesAtPrimary;
        /** Mirrored writes picked since the entry was made: a read's comparison is clean if none came after it. */
        long writesPicked;
        /** Reads picked and not yet judged. */
        int reads;
        /** Reads waiting for {@link #writesAtShadow} to reach 0, in the order picked. */
        List<Mirrored> waiting = new ArrayList<>();

        boolean unused() {
            return writesAtShadow == 0 && writesAtPrimary == 0 && reads == 0;
        }
    }

    /** What a read's comparison needs to know of the writes of its key and namespace: whether one raced it. */
    static final class Ticket {
        private final Key key;
        private final long writesBefore;
        private final Key namespace;
        private final long flushesBefore;
        private final boolean raced;
        /** Whether the read must wait for writes at the shadow before it is sent. */
        final boolean waits;

        private Ticket(Key key, long writesBefore, Key namespace, long flushesBefore, boolean raced, boolean waits) {
            this.key = key;
            this.writesBefore = writesBefore;
            this.namespace = namespace;
            this.flushesBefore = flushesBefore;
            this.raced = raced;
            this.waits = waits;
        }
    }

    /** A flush of {@code namespace} without a delay was picked; {@link #flushAnswered}, {@link #flushDone} follow. */
    void flushPicked(Namespace namespace) {
        namespaces.compute(namespace, (n, state) -> counted(state));
    }

    /** The primary answered a flush of {@code namespace}. */
    void flushAnswered(Namespace namespace) {
        namespaces.computeIfPresent(namespace, (n, state) -> answered(state));
    }

    /**
     * The shadow answered a flush of {@code namespace}, or it was dropped unsent. Returns the reads that may go now:
     * those of the namespace that waited for its flushes, but for the ones that still wait for their key's writes.
     */
    List<Mirrored> flushDone(Namespace namespace) {
        List<Mirrored> released = done(namespaces, namespace);
        List<Mirrored> ready = new ArrayList<>(released.size());
        for (Mirrored read : released) {
            boolean[] held = {false};
            keys.computeIfPresent(ItemKey.of(read.operation()), (k, state) -> {
                if (state.writesAtShadow > 0) {
                    state.waiting.add(read);
                    held[0] = true;
                }
                return state;
            });
            if (!held[0]) {
                ready.add(read);
            }
        }
        return ready;
    }

    private static Key counted(Key state) {
        Key counted = state == null ? new Key() : state;
        counted.writesAtShadow++;
        counted.writesAtPrimary++;
        counted.writesPicked++;
        return counted;
    }

    private static Key answered(Key state) {
        state.writesAtPrimary--;
        return state.unused() ? null : state;
    }

    /** A write (or flush) of {@code at} done at the shadow; the reads it released if it was the last. */
    private static <K> List<Mirrored> done(ConcurrentHashMap<K, Key> map, K at) {
        List<List<Mirrored>> released = new ArrayList<>(1);
        map.computeIfPresent(at, (k, state) -> {
            state.writesAtShadow--;
            if (state.writesAtShadow == 0 && !state.waiting.isEmpty()) {
                released.add(state.waiting);
                state.waiting = new ArrayList<>();
            }
            return state.unused() ? null : state;
        });
        return released.isEmpty() ? List.of() : released.get(0);
    }

    /** Whether ordering concerns {@code operation}: a read of one key (a get). */
    static boolean isRead(Operation operation) {
        return operation instanceof Operation.Get;
    }

    /** Whether {@code operation} changes one key (every key operation but a get). */
    static boolean isWrite(Operation operation) {
        return operation instanceof Operation.KeyOperation && !(operation instanceof Operation.Get);
    }

    /** A write of {@code key} was picked for the shadow; {@link #writeAnswered} and {@link #writeDone} follow. */
    void writePicked(ItemKey key) {
        keys.compute(key, (k, state) -> counted(state));
    }

    /** The primary answered a write of {@code key}. */
    void writeAnswered(ItemKey key) {
        keys.computeIfPresent(key, (k, state) -> answered(state));
    }

    /**
     * The shadow answered a write of {@code key}, or it was dropped unsent. Returns the reads that waited for the
     * key's writes and may go now, in the order they were picked.
     */
    List<Mirrored> writeDone(ItemKey key) {
        return done(keys, key);
    }

    /**
     * A read of {@code key} was picked: held (in the ticket's {@code waits}) when a write of the key is at the shadow,
     * to be released by {@link #writeDone}; {@link #readJudged} follows once it is compared or dropped.
     */
    Ticket readPicked(ItemKey key, Mirrored read) {
        // Its namespace's flushes first: a read waiting for them is not also put in its key's lane here, but when
        // they are done (flushDone).
        boolean[] behindFlush = {false};
        Key[] namespace = new Key[1];
        long[] flushes = new long[1];
        boolean[] flushRaced = {false};
        namespaces.compute(key.namespace(), (n, state) -> {
            Key counted = state == null ? new Key() : state;
            counted.reads++;
            behindFlush[0] = counted.writesAtShadow > 0;
            if (behindFlush[0]) {
                counted.waiting.add(read);
            }
            namespace[0] = counted;
            flushes[0] = counted.writesPicked;
            flushRaced[0] = counted.writesAtPrimary > 0;
            return counted;
        });
        Ticket[] ticket = new Ticket[1];
        keys.compute(key, (k, state) -> {
            Key counted = state == null ? new Key() : state;
            counted.reads++;
            boolean waits = !behindFlush[0] && counted.writesAtShadow > 0;
            if (waits) {
                counted.waiting.add(read);
            }
            ticket[0] = new Ticket(counted, counted.writesPicked, namespace[0], flushes[0],
                    flushRaced[0] || counted.writesAtPrimary > 0, waits || behindFlush[0]);
            return counted;
        });
        return ticket[0];
    }

    /**
     * The read of {@code key} is judged (or dropped). Returns whether a write raced it: one was unanswered by the
     * primary when the read was picked, or one was picked since.
     */
    boolean readJudged(ItemKey key, Ticket ticket) {
        boolean[] raced = {ticket.raced};
        keys.computeIfPresent(key, (k, state) -> {
            raced[0] |= state != ticket.key || state.writesPicked != ticket.writesBefore;
            if (state == ticket.key) {
                state.reads--;
            }
            return state.unused() ? null : state;
        });
        namespaces.computeIfPresent(key.namespace(), (n, state) -> {
            raced[0] |= state != ticket.namespace || state.writesPicked != ticket.flushesBefore;
            if (state == ticket.namespace) {
                state.reads--;
            }
            return state.unused() ? null : state;
        });
        return raced[0];
    }

    /** Keys with operations in flight; tests read it to check that entries do not stay behind. */
    int keysTracked() {
        return keys.size() + namespaces.size();
    }
}
