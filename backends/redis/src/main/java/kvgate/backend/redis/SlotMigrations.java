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
 * Writes that Redis Cluster refused with TRYAGAIN because their slot was migrating, tried again until it has moved,
 * in the order one gateway event loop's clients sent them. One per loop, confined to it.
 *
 * <p>While a slot migrates, its keys move one by one from the old node to the new one. An item script names three
 * keys of one slot (the item, its index shard, the shard's CAS mark), and Redis refuses it with TRYAGAIN whenever
 * those are split between the nodes, or are not all on the new node yet; that lasts until the slot has moved. The
 * script did not run, so it may run again: Redis Cluster's own clients retry TRYAGAIN the same way.
 *
 * <p>A retry runs after the commands pipelined behind the refused one, so it keeps the client's order only if none
 * of those was on the same item: each operation started on the loop's connection is noted (the last {@link #RECENT}
 * of them), and a refused write with a later operation on its item (or on a whole namespace: a flush, a scan) fails
 * with the temporary failure it always had, the later ones deciding what the client sees. While a write waits for
 * its retry, its item is held: operations on that item that arrive meanwhile wait behind it, and go once it is
 * done, or has failed. An operation on a whole namespace that arrives meanwhile goes only after every held item's
 * operations: the writes waiting for their retry fail at once, and those queued behind them are sent before it.
 */
final class SlotMigrations {
    /** Operations remembered, to tell whether one on the same item followed a refused write: a power of two. */
    static final int RECENT = 4096;
    /** The first retry's delay; each next one waits twice as long, up to {@link #LONGEST_DELAY_MILLIS}. */
    private static final long FIRST_DELAY_MILLIS = 5;
    private static final long LONGEST_DELAY_MILLIS = 100;
    /** The key noted for an operation on every item of a namespace: one that any item's check matches. */
    private static final byte[] EVERY_ITEM = new byte[0];
    /** What operations queued behind a held write get when the gateway stops before they could be sent. */
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
     * The items of the last operations started, by their number modulo {@link #RECENT}: namespace and key (the key
     * array the operation holds, not its value, which may be large), {@link #EVERY_ITEM} for an operation on a whole
     * namespace, null for one on no item (a counter's).
     */
    private final Namespace[] recentNamespaces = new Namespace[RECENT];
    private final byte[][] recentKeys = new byte[RECENT][];
    /** How many operations were started on this loop's connection. */
    private long started;
    /** Items with a write waiting for its retry, or retried and not answered yet. */
    private final Map<ItemKey, Held> held = new HashMap<>();

    /** @param budgetMillis how long after it reached the backend a write is tried again; 0: never */
    SlotMigrations(EventExecutor loop, long budgetMillis, Sender sender) {
        this.loop = loop;
        this.budgetNanos = TimeUnit.MILLISECONDS.toNanos(budgetMillis);
        this.sender = sender;
    }

    /**
     * Whether an operation reads or changes a whole namespace (a flush, a scan, a tag's or the n-gram index's
     * look-up): no write held before it may land after it, and no refused write it follows may be sent again.
     */
    private static boolean onEveryItem(Operation operation) {
        return operation instanceof Operation.Flush || operation instanceof Operation.Scan
                || operation instanceof Operation.TaggedKeys || operation instanceof Operation.Search;
    }

    /** An item: its namespace and key, compared by content. */
    private record ItemKey(Namespace namespace, ByteBuffer key) {
        /** The item an operation reads or changes; null for one on no single item. */
        static ItemKey of(Operation operation) {
            byte[] key = keyOf(operation);
            return key == null ? null : new ItemKey(operation.namespace(), ByteBuffer.wrap(key));
        }

        /** Whether an operation noted as {@code namespace} and {@code key} (see {@link #started}) was on this item. */
        boolean isOf(Namespace namespace, byte[] key) {
            return key != null && (key == EVERY_ITEM || namespace.equals(this.namespace)
                    && ByteBuffer.wrap(key).equals(this.key));
        }

        static byte[] keyOf(Operation operation) {
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
            return null;
        }
    }

    /** A write waiting for its retry (or retried), and the operations on its item that came after it. */
    private static final class Held {
        final Operation write;
        final ResultFuture outcome;
        final ArrayDeque<Waiting> queue = new ArrayDeque<>();
        /** The pending retry; null while the retry is on its way. */
        ScheduledFuture<?> retry;
        /** What the write fails with if it may not be tried again. */
        Result refusal;
        int attempts;

        Held(Operation write, ResultFuture outcome) {
            this.write = write;
            this.outcome = outcome;
        }
    }

    private record Waiting(Operation operation, ResultFuture outcome, long since) {
    }

    /** Whether Redis refused the operation for a migrating slot, and it is a write that may be tried again. */
    static boolean retriable(Operation operation, Throwable cause) {
        return operation instanceof Operation.KeyOperation && !(operation instanceof Operation.Get)
                && cause instanceof RedisCommandExecutionException && cause.getMessage() != null
                && cause.getMessage().startsWith("TRYAGAIN");
    }

    /**
     * Before an operation is started on the loop: null when it may go now, else the result of it queued behind
     * the held write on its item. A flush releases every held item first.
     */
    ResultFuture queueIfHeld(Operation operation) {
        if (held.isEmpty()) {
            return null;
        }
        if (onEveryItem(operation)) {
            releaseAll();
            return null;
        }
        Held on = held.get(ItemKey.of(operation));
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
        recentKeys[at] = onEveryItem(operation) ? EVERY_ITEM : ItemKey.keyOf(operation);
        return started++;
    }

    /**
     * Redis refused the write numbered {@code number} with TRYAGAIN (from any thread): it is tried again after a
     * delay if that keeps its client's order and its time is not up, else {@code outcome} gets {@code refusal}.
     */
    void refused(Operation write, long number, long since, ResultFuture outcome, Result refusal) {
        try {
            loop.execute(() -> onRefused(write, number, since, outcome, refusal));
        } catch (RejectedExecutionException e) {
            outcome.complete(refusal); // the gateway is stopping
        }
    }

    private void onRefused(Operation write, long number, long since, ResultFuture outcome, Result refusal) {
        ItemKey item = ItemKey.of(write);
        Held on = held.get(item);
        boolean again = on != null && on.write == write; // its retry was refused too
        // Another write of the item held means this one came before it, and is followed by it (as followed() says).
        if ((on != null && !again) || System.nanoTime() - since >= budgetNanos || followed(item, number)) {
            outcome.complete(refusal);
            if (again) {
                release(item, on);
            }
            return;
        }
        if (on == null) {
            Held first = new Held(write, outcome);
            on = first;
            held.put(item, first);
            outcome.whenComplete((result, error) -> {
                if (loop.inEventLoop()) {
                    release(item, first);
                } else {
                    try {
                        loop.execute(() -> release(item, first));
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
            on.retry = loop.schedule(() -> retry(item, retried, since), delay, TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException e) {
            outcome.complete(refusal); // the gateway is stopping
            return;
        }
        // Cancelled by a flush, or by the loop's shutdown, which runs no task it still has: the write fails.
        on.retry.addListener(done -> {
            if (done.isCancelled()) {
                retried.outcome.complete(retried.refusal);
            }
        });
    }

    /** Whether an operation on {@code item}, or on every item, was started after the one numbered {@code number}. */
    private boolean followed(ItemKey item, long number) {
        if (started - number > RECENT) {
            return true; // no longer known: assume so
        }
        for (long later = number + 1; later < started; later++) {
            int at = (int) (later & (RECENT - 1));
            if (item.isOf(recentNamespaces[at], recentKeys[at])) {
                return true;
            }
        }
        return false;
    }

    private void retry(ItemKey item, Held on, long since) {
        if (held.get(item) != on) {
            return; // given up meanwhile, for a flush
        }
        on.retry = null;
        sender.send(on.write, on.outcome, since);
        sender.flush();
    }

    /** The held write is done (or given up): what waited behind it goes, in order. */
    private void release(ItemKey item, Held on) {
        if (held.get(item) != on) {
            return;
        }
        held.remove(item);
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
     * A flush comes: writes waiting for their retry fail now (the flush must not be overtaken by them), and every
     * held item's queued operations are sent ahead of it. A retry already on its way was sent before the flush.
     */
    private void releaseAll() {
        List<Map.Entry<ItemKey, Held>> all = new ArrayList<>(held.entrySet());
        for (Map.Entry<ItemKey, Held> entry : all) {
            Held on = entry.getValue();
            if (on.retry != null) {
                on.retry.cancel(false);
                on.retry = null;
                on.outcome.complete(on.refusal);
            }
            release(entry.getKey(), on);
        }
    }
}
