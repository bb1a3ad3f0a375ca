package kvgate.plugin.shadow;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import kvgate.spi.Namespace;
import kvgate.spi.Operation;

/**
 * Makes a mirrored read compare like with like. A client that writes a key on one connection and, once the write is
 * acknowledged, reads it on another expects the new value, and the primary gives it; but the two mirrored copies
 * travel to the shadow on the connections of two different threads, and the read could overtake the write there,
 * reporting a difference the stores do not have. So a mirrored read of a key is held until every mirrored write of
 * the key, and every mirrored flush of its namespace, picked <em>before</em> it has been answered by the shadow (or
 * dropped unsent), whatever thread it came from.
 *
 * <p>A write of the key picked while a read of it is held waits behind that read, in the key's lane, so that it
 * cannot reach the shadow first: otherwise a shadow slower than the client's pace would answer the read with a value
 * the primary had not yet been given, the comparison would be lost to a race, and the held read, waiting for that
 * later write too, would never catch up. A lane is released in order as soon as its head may go, each run as one
 * list (a backend keeps a list's order for a key), and what is picked of the key while a run is being sent waits
 * until it has been ({@link #handedOn}). A flush does not wait: what is held in its namespace is released before it,
 * in order, as the primary applied it before the flush.
 *
 * <p>What ordering cannot settle is a read that raced a write: one picked while a write of its key (or a flush of its
 * namespace) was still unanswered by the primary, or one whose key was written again (or namespace flushed) before
 * its comparison. Either store may then rightly hold either value, so a difference is counted as {@code undecidable},
 * not as a mismatch.
 *
 * <p>A key's state lives only while operations of the key are in flight, and is read and changed only inside the
 * map's compute of its key, so its checks and counts never race. A namespace's flushes are counted in concurrent
 * fields that a key's compute reads; namespaces are few and configured, so their state stays.
 */
final class ReadOrder {
    private final ConcurrentHashMap<ItemKey, Key> keys = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<Namespace, Space> namespaces = new ConcurrentHashMap<>();

    /** One key's operations in flight. Read and changed only inside the map's compute of its key. */
    private static final class Key {
        /** Writes picked since the entry was made: the number of the latest. */
        long picked;
        /** The numbers of writes picked and not yet answered by the shadow (nor dropped). */
        final TreeSet<Long> atShadow = new TreeSet<>();
        /** Writes picked whose primary has not answered. */
        int atPrimary;
        /** Reads picked and not yet judged. */
        int reads;
        /** Operations waiting to go, in the order picked: a read first, then whatever followed it. */
        final ArrayDeque<Mirrored> held = new ArrayDeque<>();
        /**
         * A thread has taken a run out of {@link #held} and not yet sent it: until it has ({@link #handedOn}), what
         * is picked of the key waits too, and only that thread takes more, so that nothing overtakes the run.
         */
        boolean releasing;

        boolean unused() {
            return atShadow.isEmpty() && atPrimary == 0 && reads == 0 && held.isEmpty() && !releasing;
        }

        long oldestAtShadow() {
            return atShadow.isEmpty() ? Long.MAX_VALUE : atShadow.first();
        }
    }

    /** One namespace's flushes in flight, and the keys holding operations (a flush releases them). */
    private static final class Space {
        final AtomicLong picked = new AtomicLong();
        final ConcurrentSkipListSet<Long> atShadow = new ConcurrentSkipListSet<>();
        final AtomicInteger atPrimary = new AtomicInteger();
        final Set<ItemKey> holding = ConcurrentHashMap.newKeySet();

        long oldestAtShadow() {
            Long oldest = atShadow.ceiling(Long.MIN_VALUE);
            return oldest == null ? Long.MAX_VALUE : oldest;
        }
    }

    /** What a read's comparison needs to know of the writes of its key and namespace: whether one raced it. */
    static final class Ticket {
        private final Key key;
        private final long writesBefore;
        private final long flushesBefore;
        private final boolean raced;
        /** Whether the read was held when picked, to be released by a write's or a flush's end. */
        final boolean waits;

        private Ticket(Key key, long writesBefore, long flushesBefore, boolean raced, boolean waits) {
            this.key = key;
            this.writesBefore = writesBefore;
            this.flushesBefore = flushesBefore;
            this.raced = raced;
            this.waits = waits;
        }
    }

    private Space space(Namespace namespace) {
        return namespaces.computeIfAbsent(namespace, n -> new Space());
    }

    /** Whether ordering concerns {@code operation}: a read of one key ({@link Operation#readsItem}). */
    static boolean isRead(Operation operation) {
        return Operation.readsItem(operation);
    }

    /** Whether {@code operation} changes one key (every key operation but a read of it). */
    static boolean isWrite(Operation operation) {
        return operation instanceof Operation.KeyOperation && !Operation.readsItem(operation);
    }

    /**
     * A flush of {@code flush}'s namespace without a delay was picked; {@link #flushAnswered}, {@link #flushDone}
     * follow. Returns what was held in the namespace, in each key's order, to go to the shadow before the flush (the
     * caller then calls {@link #handedOn} for each of their keys); adds to {@code overtaken} what was held behind a
     * run another thread is sending, which the flush will overtake.
     */
    List<Mirrored> flushPicked(Mirrored flush, List<Mirrored> overtaken) {
        Space space = space(flush.operation().namespace());
        // Counted at the primary before it is numbered, and a read looks the other way round: a read that finds
        // this flush's number finds it at the primary too, so it counts as raced if it was not held behind it.
        space.atPrimary.incrementAndGet();
        flush.number(space.picked.incrementAndGet());
        space.atShadow.add(flush.number());
        List<Mirrored> released = new ArrayList<>();
        for (ItemKey key : space.holding) {
            keys.computeIfPresent(key, (k, state) -> {
                if (state.releasing) {
                    // Another thread is sending a run of the key: what waits behind that run cannot go before this
                    // flush without overtaking it, so the caller counts it as overtaken instead.
                    overtaken.addAll(state.held);
                } else {
                    released.addAll(state.held);
                    state.releasing = !state.held.isEmpty();
                }
                state.held.clear();
                space.holding.remove(k);
                return state.unused() ? null : state;
            });
        }
        return released;
    }

    /** The primary answered a flush of {@code namespace}. */
    void flushAnswered(Namespace namespace) {
        space(namespace).atPrimary.decrementAndGet();
    }

    /**
     * The shadow answered {@code flush}, or it was dropped unsent. Returns the operations of its namespace that may go
     * now: the reads that waited for it, and what waited behind them.
     */
    List<Mirrored> flushDone(Mirrored flush) {
        Space space = space(flush.operation().namespace());
        space.atShadow.remove(flush.number());
        List<Mirrored> released = new ArrayList<>();
        for (ItemKey key : space.holding) {
            keys.computeIfPresent(key, (k, state) -> release(k, state, space, released));
        }
        return released;
    }

    /**
     * A write of its key was picked for the shadow; {@link #writeAnswered} and {@link #writeDone} follow. Returns
     * true when it is held behind a read of the key picked before it (it then comes out of a later release).
     */
    boolean writePicked(Mirrored write) {
        ItemKey key = ItemKey.of(write.operation());
        Space space = space(key.namespace());
        boolean[] held = {false};
        keys.compute(key, (k, state) -> {
            Key counted = state == null ? new Key() : state;
            write.number(++counted.picked);
            counted.atShadow.add(write.number());
            counted.atPrimary++;
            if (!counted.held.isEmpty() || counted.releasing) {
                counted.held.add(write);
                space.holding.add(k); // a flush releases it, or leaves it as overtaken
                held[0] = true;
            }
            return counted;
        });
        return held[0];
    }

    /** The primary answered a write of {@code key}. */
    void writeAnswered(ItemKey key) {
        keys.computeIfPresent(key, (k, state) -> {
            state.atPrimary--;
            return state.unused() ? null : state;
        });
    }

    /**
     * The shadow answered {@code write}, or it was dropped unsent. Returns the operations of its key that may go now,
     * in the order they were picked.
     */
    List<Mirrored> writeDone(Mirrored write) {
        ItemKey key = ItemKey.of(write.operation());
        Space space = space(key.namespace());
        List<Mirrored> released = new ArrayList<>();
        keys.computeIfPresent(key, (k, state) -> {
            state.atShadow.remove(write.number());
            return release(k, state, space, released);
        });
        return released;
    }

    /**
     * A read of {@code key} was picked: held (the ticket {@code waits}) while a write of the key or a flush of its
     * namespace picked before it is at the shadow, or while something of the key is held before it;
     * {@link #readJudged} follows once it is compared or dropped.
     */
    Ticket readPicked(ItemKey key, Mirrored read) {
        Space space = space(key.namespace());
        long flushesBefore = space.picked.get();
        boolean flushRaced = space.atPrimary.get() > 0;
        Ticket[] ticket = new Ticket[1];
        keys.compute(key, (k, state) -> {
            Key counted = state == null ? new Key() : state;
            counted.reads++;
            // Listed as holding before the flushes are looked at: a flush ending meanwhile then finds the key.
            space.holding.add(k);
            boolean waits = !counted.held.isEmpty() || counted.releasing || !counted.atShadow.isEmpty()
                    || space.oldestAtShadow() <= flushesBefore;
            ticket[0] = new Ticket(counted, counted.picked, flushesBefore, flushRaced || counted.atPrimary > 0,
                    waits);
            // Set before the read is held: a release on another thread, in a later compute of the key, reads it.
            read.ticket(ticket[0]);
            if (waits) {
                counted.held.add(read);
            } else {
                space.holding.remove(k);
            }
            return counted;
        });
        return ticket[0];
    }

    /**
     * Takes from the head of a key's lane what may go: writes, and reads whose earlier writes and flushes are all
     * done at the shadow; a read that must still wait stops the run.
     */
    private static Key release(ItemKey key, Key state, Space space, List<Mirrored> released) {
        if (state.releasing) {
            return state; // the thread sending the key's run takes what may go next (handedOn)
        }
        int before = released.size();
        while (!state.held.isEmpty()) {
            Mirrored head = state.held.peek();
            Ticket ticket = head.ticket();
            if (ticket != null && (state.oldestAtShadow() <= ticket.writesBefore
                    || space.oldestAtShadow() <= ticket.flushesBefore)) {
                break;
            }
            released.add(state.held.poll());
        }
        state.releasing = released.size() > before;
        if (state.held.isEmpty()) {
            space.holding.remove(key);
        }
        return state.unused() ? null : state;
    }

    /**
     * The run taken of {@code key} has been sent: returns what of the key may go next, to be sent in turn (and
     * handed on again), or nothing, which ends the key's release.
     */
    List<Mirrored> handedOn(ItemKey key) {
        Space space = space(key.namespace());
        List<Mirrored> next = new ArrayList<>();
        keys.computeIfPresent(key, (k, state) -> {
            state.releasing = false;
            return release(k, state, space, next);
        });
        return next;
    }

    /**
     * The read of {@code key} is judged (or dropped). Returns whether a write raced it: one was unanswered by the
     * primary when the read was picked, or one was picked since.
     */
    boolean readJudged(ItemKey key, Ticket ticket) {
        boolean[] raced = {ticket.raced || space(key.namespace()).picked.get() != ticket.flushesBefore};
        keys.computeIfPresent(key, (k, state) -> {
            raced[0] |= state != ticket.key || state.picked != ticket.writesBefore;
            if (state == ticket.key) {
                state.reads--;
            }
            return state.unused() ? null : state;
        });
        return raced[0];
    }

    /** Keys and namespaces with operations in flight; tests read it to check that entries do not stay behind. */
    int keysTracked() {
        int flushing = 0;
        for (Space space : namespaces.values()) {
            flushing += space.atShadow.isEmpty() && space.atPrimary.get() == 0 && space.holding.isEmpty() ? 0 : 1;
        }
        return keys.size() + flushing;
    }
}
