package kvgate.backend.redis;

import io.lettuce.core.RedisCommandExecutionException;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.ScheduledFuture;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import kvgate.spi.Namespace;
import kvgate.spi.Operation;
import kvgate.spi.Result;
import kvgate.spi.ResultFuture;
import kvgate.spi.Status;

/**
 * Operations that Redis Cluster refused with TRYAGAIN because their slot was migrating, tried again until it has
 * moved, in the order one gateway event loop's clients sent them. One per loop, confined to it.
 *
 * <p>While a slot migrates, its keys move one by one from the old node to the new one. An item's write is a script
 * on three keys of one slot (the item, its index shard, the shard's CAS mark), a counter's operation one on two (the
 * counter and its leases), and Redis refuses such a script with TRYAGAIN whenever its keys are split between the
 * nodes, or are not all on the new node yet; that lasts until the slot has moved. The script did not run, so it may
 * run again: Redis Cluster's own clients retry TRYAGAIN the same way.
 *
 * <p>A retry runs after the commands pipelined behind the refused one, so it keeps the client's order only if none
 * of those was on the same item or counter (its subject): each operation started on the loop's connection is noted
 * (the last {@link #RECENT} of them), and a refused operation followed by another on its subject, or on every one
 * of its kind (a flush or a scan of items; a connection's release of all its counters, or a dump, for that
 * connection's counter operations), fails with the temporary failure it always had, the later ones deciding what
 * the client sees. While an operation waits for its retry, its subject is held: operations on it that arrive
 * meanwhile wait behind it, and go once it is done, or has failed. An operation on every one of a kind that arrives
 * meanwhile goes only after the held operations it orders: those waiting for their retry fail at once, and those
 * queued behind them are sent before it.
 */
final class SlotMigrations {
    /** Operations remembered, to tell whether one on the same subject followed a refused one: a power of two. */
    static final int RECENT = 4096;
    /** The first retry's delay; each next one waits twice as long, up to {@link #LONGEST_DELAY_MILLIS}. */
    private static final long FIRST_DELAY_MILLIS = 5;
    private static final long LONGEST_DELAY_MILLIS = 100;
    /** The key noted for an operation on every item (or counter): one that any item's (counter's) check matches. */
    private static final byte[] EVERY = new byte[0];
    /** What operations queued behind a held one get when the gateway stops before they could be sent. */
    private static final Result STOPPING = Result.failure(Status.TEMPORARY_FAILURE, "the gateway is stopping");

    /** Sends an operation on the loop's connection, as the backend sends any. */
    interface Sender {
        /**
         * Starts {@code operation} (without flushing); its result completes {@code outcome}. {@code since}: when it
         * reached the backend, from which a retry of it is timed.
         */
        void send(Operation operation, ResultFuture outcome, long since);

        /** Writes what was started to Redis. */
        void flush();
    }

    private final EventExecutor loop;
    private final long budgetNanos;
    private final Sender sender;
    /**
     * What the last operations started were on, by their number modulo {@link #RECENT}: the kind, namespace and key
     * or name (the array the operation holds, not its value, which may be large), {@link #EVERY} for an operation on
     * every item or counter; a null kind for one on neither.
     */
    private final Kind[] recentKinds = new Kind[RECENT];
    private final Namespace[] recentNamespaces = new Namespace[RECENT];
    private final byte[][] recentKeys = new byte[RECENT][];
    /** The client connection each counter operation was for (null for an item's): see {@link #ownerOf}. */
    private final String[] recentOwners = new String[RECENT];
    /** How many operations were started on this loop's connection. */
    private long started;
    /** Subjects with an operation waiting for its retry, or retried and not answered yet. */
    private final Map<Subject, Held> held = new HashMap<>();

    /** @param budgetMillis how long after it reached the backend a refused operation is tried again; 0: never */
    SlotMigrations(EventExecutor loop, long budgetMillis, Sender sender) {
        this.loop = loop;
        this.budgetNanos = TimeUnit.MILLISECONDS.toNanos(budgetMillis);
        this.sender = sender;
    }

    /** What an operation may be on: an item, or a counter (a counter's name and an item's key are apart). */
    enum Kind {
        ITEM,
        COUNTER
    }

    /** What an operation is on, for its order: one item or counter, by content. */
    private record Subject(Kind kind, Namespace namespace, ByteBuffer key) {
        /** The item or counter an operation reads or changes; null for one on no single item or counter. */
        static Subject of(Operation operation) {
            byte[] key = keyOf(operation);
            return key == null ? null : new Subject(kindOf(operation), operation.namespace(), ByteBuffer.wrap(key));
        }

        /**
         * Whether an operation noted as {@code kind}, {@code namespace}, {@code key} and {@code owner} was on this
         * subject, for an operation of {@code refusedOwner}. One on every counter orders only its own client's.
         */
        boolean isOf(Kind kind, Namespace namespace, byte[] key, String owner, String refusedOwner) {
            if (kind != this.kind) {
                return false;
            }
            if (key == EVERY) {
                return owner == null || owner.equals(refusedOwner);
            }
            return namespace.equals(this.namespace) && ByteBuffer.wrap(key).equals(this.key);
        }
    }

    /**
     * The client connection a counter operation is for; null for an item's. A connection's operations on every
     * counter (its release of all it holds when it closes, a dump) order its own counter operations only: the
     * others' orders do not depend on it, and a client closing must not give up another's waiting acquisition.
     */
    private static String ownerOf(Operation operation) {
        return operation instanceof Operation.CounterOperation counter ? counter.owner() : null;
    }

    /** The kind of what an operation with a key or name ({@link #keyOf}) is on. */
    private static Kind kindOf(Operation operation) {
        return operation instanceof Operation.CounterOperation ? Kind.COUNTER : Kind.ITEM;
    }

    /** The key or name of the one item or counter an operation is on; null for none. */
    private static byte[] keyOf(Operation operation) {
        if (operation instanceof Operation.KeyOperation keyed) {
            return keyed.key();
        }
        if (operation instanceof Operation.Tag tag) {
            return tag.key();
        }
        if (operation instanceof Operation.Untag untag) {
            return untag.key();
        }
        if (operation instanceof Operation.Index index) {
            return index.key();
        }
        if (operation instanceof Operation.Unindex unindex) {
            return unindex.key();
        }
        if (operation instanceof Operation.Acquire acquire) {
            return acquire.name();
        }
        if (operation instanceof Operation.Release release) {
            return release.name();
        }
        if (operation instanceof Operation.ReadCounter read) {
            return read.name();
        }
        return null;
    }

    /**
     * The kind of which an operation reads or changes every one of a namespace at once (a flush, a scan, a tag's
     * or the n-gram index's look-up: every item; a connection's release of all it holds, a dump: every counter), so
     * that nothing of that kind held before it may land after it; null for none.
     */
    private static Kind everyOf(Operation operation) {
        if (operation instanceof Operation.Flush || operation instanceof Operation.Scan
                || operation instanceof Operation.TaggedKeys || operation instanceof Operation.Search
                || operation instanceof Operation.DropTags) {
            return Kind.ITEM;
        }
        if (operation instanceof Operation.ReleaseAll || operation instanceof Operation.DumpCounters) {
            return Kind.COUNTER;
        }
        return null;
    }

    /** An operation waiting for its retry (or retried), and the operations on its subject that came after it. */
    private static final class Held {
        final Operation operation;
        final ResultFuture outcome;
        final ArrayDeque<Waiting> queue = new ArrayDeque<>();
        /** The pending retry; null while the retry is on its way. */
        ScheduledFuture<?> retry;
        /** What it fails with if it may not be tried again. */
        Result refusal;
        int attempts;

        Held(Operation operation, ResultFuture outcome) {
            this.operation = operation;
            this.outcome = outcome;
        }
    }

    private record Waiting(Operation operation, ResultFuture outcome, long since) {
    }

    /**
     * Whether Redis refused the operation for a migrating slot, and it may be tried again: an item's write (a get is
     * one key's command, never refused so) or a counter's acquisition, release or read, each one script on one slot.
     * Tags and the n-gram index span slots, in several commands of which some may have run.
     */
    static boolean retriable(Operation operation, Throwable cause) {
        boolean oneScript = operation instanceof Operation.KeyOperation && !(operation instanceof Operation.Get)
                || operation instanceof Operation.Acquire || operation instanceof Operation.Release
                || operation instanceof Operation.ReadCounter;
        return oneScript && cause instanceof RedisCommandExecutionException && cause.getMessage() != null
                && RedisBackend.errorCode(cause.getMessage(), "TRYAGAIN");
    }

    /**
     * Before an operation is started on the loop: null when it may go now, else the result of it queued behind
     * the held operation on its subject. One on every item (every counter) releases every held item (counter).
     */
    ResultFuture queueIfHeld(Operation operation) {
        if (held.isEmpty()) {
            return null;
        }
        Kind every = everyOf(operation);
        if (every != null) {
            releaseAll(every, ownerOf(operation));
            return null;
        }
        Held on = held.get(Subject.of(operation));
        if (on == null) {
            return null;
        }
        ResultFuture outcome = new ResultFuture();
        on.queue.add(new Waiting(operation, outcome, System.nanoTime()));
        return outcome;
    }

    /** Notes an operation started on the loop's connection; returns its number. */
    long started(Operation operation) {
        int at = (int) (started & (RECENT - 1));
        recentNamespaces[at] = operation.namespace();
        byte[] key = keyOf(operation);
        Kind every = key == null ? everyOf(operation) : null;
        recentKinds[at] = key != null ? kindOf(operation) : every;
        recentKeys[at] = key != null ? key : every != null ? EVERY : null;
        recentOwners[at] = ownerOf(operation);
        return started++;
    }

    /**
     * Redis refused the operation numbered {@code number} with TRYAGAIN (from any thread): it is tried again after
     * a delay if that keeps its client's order and its time is not up, else {@code outcome} gets {@code refusal}.
     */
    void refused(Operation refused, long number, long since, ResultFuture outcome, Result refusal) {
        try {
            loop.execute(() -> onRefused(refused, number, since, outcome, refusal));
        } catch (RejectedExecutionException e) {
            outcome.complete(refusal); // the gateway is stopping
        }
    }

    private void onRefused(Operation refused, long number, long since, ResultFuture outcome, Result refusal) {
        Subject subject = Subject.of(refused);
        Held on = held.get(subject);
        boolean again = on != null && on.operation == refused; // its retry was refused too
        // Another one of the subject held means this one came before it, and is followed by it (see followed()).
        if ((on != null && !again) || System.nanoTime() - since >= budgetNanos
                || followed(subject, ownerOf(refused), number)) {
            outcome.complete(refusal);
            if (again) {
                release(subject, on);
            }
            return;
        }
        if (on == null) {
            Held first = new Held(refused, outcome);
            on = first;
            held.put(subject, first);
            outcome.whenComplete((result, error) -> {
                if (loop.inEventLoop()) {
                    release(subject, first);
                } else {
                    try {
                        loop.execute(() -> release(subject, first));
                    } catch (RejectedExecutionException e) {
                        // The gateway is stopping: no loop is left to send what waited; it fails here.
                        for (Waiting waiting : first.queue) {
                            waiting.outcome().complete(STOPPING);
                        }
                    }
                }
            });
        }
        on.refusal = refusal;
        Held retried = on;
        // Never past the budget: the last retry goes when it ends, and its refusal is final.
        long backoff = TimeUnit.MILLISECONDS.toNanos(
                Math.min(LONGEST_DELAY_MILLIS, FIRST_DELAY_MILLIS << Math.min(on.attempts, 16)));
        long delay = Math.max(0, Math.min(backoff, since + budgetNanos - System.nanoTime()));
        on.attempts++;
        try {
            on.retry = loop.schedule(() -> retry(subject, retried, since), delay, TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException e) {
            outcome.complete(refusal); // the gateway is stopping
            return;
        }
        // Cancelled for an operation on every one of its kind, or by the loop's shutdown: it fails.
        on.retry.addListener(done -> {
            if (done.isCancelled()) {
                retried.outcome.complete(retried.refusal);
            }
        });
    }

    /**
     * Whether an operation on {@code subject}, or on every one of its kind (for a counter's, by the same client,
     * {@code owner}), was started after the one numbered {@code number}.
     */
    private boolean followed(Subject subject, String owner, long number) {
        if (started - number > RECENT) {
            return true; // no longer known: assume so
        }
        for (long later = number + 1; later < started; later++) {
            int at = (int) (later & (RECENT - 1));
            if (subject.isOf(recentKinds[at], recentNamespaces[at], recentKeys[at], recentOwners[at], owner)) {
                return true;
            }
        }
        return false;
    }

    private void retry(Subject subject, Held on, long since) {
        if (held.get(subject) != on) {
            return; // given up meanwhile, for an operation on every one of its kind
        }
        on.retry = null;
        sender.send(on.operation, on.outcome, since);
        sender.flush();
    }

    /** The held operation is done (or given up): what waited behind it goes, in order. */
    private void release(Subject subject, Held on) {
        if (held.get(subject) != on) {
            return;
        }
        held.remove(subject);
        if (on.queue.isEmpty()) {
            return;
        }
        for (Waiting waiting : on.queue) {
            sender.send(waiting.operation(), waiting.outcome(), waiting.since());
        }
        on.queue.clear();
        sender.flush();
    }

    /**
     * An operation on every one of a kind comes (a flush; a release of all a connection holds, for that
     * connection's counter operations, {@code owner}'s): those waiting for their retry fail now (it must not be
     * overtaken by them), and their queued operations are sent ahead of it. A retry already on its way was sent
     * before it.
     */
    private void releaseAll(Kind kind, String owner) {
        List<Map.Entry<Subject, Held>> all = new ArrayList<>(held.entrySet());
        for (Map.Entry<Subject, Held> entry : all) {
            if (entry.getKey().kind() != kind
                    || owner != null && !owner.equals(ownerOf(entry.getValue().operation))) {
                continue;
            }
            Held on = entry.getValue();
            if (on.retry != null) {
                // Completed and released here, not by the cancellation's listener, which Netty may run later: what
                // queued must be sent before the operation that gives it up is.
                on.retry.cancel(false);
                on.retry = null;
                on.outcome.complete(on.refusal);
            }
            release(entry.getKey(), on);
        }
    }
}
