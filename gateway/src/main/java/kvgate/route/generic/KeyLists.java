package kvgate.route.generic;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import kvgate.dispatch.OperationStream;
import kvgate.dispatch.Outcomes;
import kvgate.spi.Backend;
import kvgate.spi.Item;
import kvgate.spi.Namespace;
import kvgate.spi.Operation;
import kvgate.spi.Result;
import kvgate.spi.Status;
import kvgate.spi.StoreMode;

/**
 * Key lists ({@link KeyLog}) kept as ordinary items of a backend, through its basic operations only: get, append,
 * add and CAS store. This is what lets tags, the search index and namespace scans work on a backend that has none
 * of them, shared correctly by every gateway in front of it.
 */
public final class KeyLists {
    private final Backend backend;

    public KeyLists(Backend backend) {
        this.backend = backend;
    }

    /**
     * One list as read.
     *
     * @param cas the item's CAS, 0 when the list does not exist
     */
    record Listed(Namespace namespace, byte[] record, KeyLog.Replay replay, long cas) {
    }

    /** A failure of the backend while working on key lists, carried through stages to the operation's result. */
    static final class Failed extends RuntimeException {
        final Result.Failure failure;

        Failed(Result.Failure failure) {
            super(failure.status() + " " + failure.message(), null, false, false);
            this.failure = failure;
        }

        /** The failure behind {@code error}, or a backend error for anything else. */
        static Result.Failure of(Throwable error) {
            Throwable cause = error instanceof CompletionException && error.getCause() != null
                    ? error.getCause() : error;
            return cause instanceof Failed failed ? failed.failure : Result.backendError(cause);
        }
    }

    CompletionStage<Result> execute(Operation operation) {
        try {
            return Outcomes.guarded(backend.execute(operation));
        } catch (RuntimeException e) {
            return CompletableFuture.completedFuture(Result.backendError(e));
        }
    }

    /**
     * Appends entries to a list, creating it when missing. A list grown past the item size limit is rewritten
     * compactly once and the append tried again. Completes with {@link Result#DONE} or the backend's failure.
     */
    CompletionStage<Result> append(Namespace namespace, byte[] record, byte[] entries) {
        return appendOrCreate(namespace, record, entries, true);
    }

    private CompletionStage<Result> appendOrCreate(Namespace namespace, byte[] record, byte[] entries,
                                                   boolean mayCompact) {
        return execute(new Operation.Store(namespace, record, StoreMode.APPEND, entries, 0, Item.NEVER, 0))
                .thenCompose(appended -> {
                    if (appended.ok()) {
                        return done();
                    }
                    if (appended.status() == Status.NOT_STORED || appended.status() == Status.NOT_FOUND) {
                        return create(namespace, record, entries);
                    }
                    if (appended.status() == Status.TOO_LARGE && mayCompact) {
                        return read(namespace, List.of(record)).thenCompose(listed -> {
                            KeyLog.Replay replay = listed.get(0).replay();
                            if (replay.then(entries).keys().equals(replay.keys())) {
                                // The list already says what the entries would (a key it lists, tagged again):
                                // a full list must not refuse a store that adds nothing to it.
                                return done();
                            }
                            return rewrite(listed.get(0), replay.keys())
                                    .thenCompose(ignored -> appendOrCreate(namespace, record, entries, false));
                        }).exceptionally(Failed::of);
                    }
                    return CompletableFuture.completedFuture(appended);
                });
    }

    private CompletionStage<Result> create(Namespace namespace, byte[] record, byte[] entries) {
        return execute(new Operation.Store(namespace, record, StoreMode.ADD, entries, 0, Item.NEVER, 0))
                .thenCompose(added -> {
                    if (added.ok()) {
                        return done();
                    }
                    if (added.status() == Status.EXISTS || added.status() == Status.NOT_STORED) {
                        // Another writer created it first: append to theirs.
                        return execute(new Operation.Store(namespace, record, StoreMode.APPEND, entries, 0,
                                Item.NEVER, 0)).thenApply(again -> again.ok() ? Result.DONE : again);
                    }
                    return CompletableFuture.completedFuture(added);
                });
    }

    /** Reads lists in one batch; completes exceptionally with {@link Failed} when any read fails. */
    CompletionStage<List<Listed>> read(Namespace namespace, List<byte[]> records) {
        return getAll(namespace, records).thenApply(results -> {
            List<Listed> listed = new ArrayList<>(records.size());
            for (int i = 0; i < records.size(); i++) {
                Item item = itemOf(results.get(i));
                listed.add(item == null
                        ? new Listed(namespace, records.get(i), KeyLog.Replay.EMPTY, 0)
                        : new Listed(namespace, records.get(i), KeyLog.replay(item.value()), item.cas()));
            }
            return listed;
        });
    }

    /**
     * Rewrites a list compactly as {@code keep}, only if nothing changed it since it was read (CAS). Best effort:
     * a lost race or a failure leaves the longer log, which says the same or more.
     */
    CompletionStage<Void> rewrite(Listed listed, Collection<String> keep) {
        if (listed.cas() == 0) {
            return CompletableFuture.completedFuture(null);
        }
        Operation write;
        if (keep.isEmpty()) {
            write = new Operation.Delete(listed.namespace(), listed.record(), listed.cas());
        } else {
            write = new Operation.Store(listed.namespace(), listed.record(), StoreMode.SET,
                    KeyLog.listing(KeyLog.Replay.bytes(keep)), 0,
                    Item.NEVER, listed.cas());
        }
        return execute(write).thenApply(ignored -> null);
    }

    /**
     * Drops {@code gone} keys from each list that names any, and rewrites wasteful ones, each by a best-effort CAS
     * rewrite (see {@link #rewrite}).
     */
    void prune(List<Listed> read, Set<String> gone) {
        for (Listed listed : read) {
            Set<String> keep = new LinkedHashSet<>(listed.replay().keys());
            if (keep.removeAll(gone) || listed.replay().wasteful()) {
                rewrite(listed, keep);
            }
        }
    }

    /**
     * The key of a list item: {@code <namespace> 0x00 <name>}. Namespace names never hold 0x00, so no two
     * (namespace, name) pairs share a list.
     */
    static byte[] record(Namespace namespace, byte[] name) {
        byte[] prefix = namespace.name().getBytes(StandardCharsets.US_ASCII);
        byte[] record = new byte[prefix.length + 1 + name.length];
        System.arraycopy(prefix, 0, record, 0, prefix.length);
        System.arraycopy(name, 0, record, prefix.length + 1, name.length);
        return record;
    }

    /** Reads the items under {@code keys} of {@code namespace} in one batch; a missing key maps to null. */
    CompletionStage<List<Item>> items(Namespace namespace, List<byte[]> keys) {
        return getAll(namespace, keys).thenApply(results -> {
            List<Item> items = new ArrayList<>(keys.size());
            for (Result result : results) {
                items.add(itemOf(result));
            }
            return items;
        });
    }

    private CompletionStage<List<Result>> getAll(Namespace namespace, List<byte[]> keys) {
        List<Operation> gets = new ArrayList<>(keys.size());
        for (byte[] key : keys) {
            gets.add(new Operation.Get(namespace, key));
        }
        return OperationStream.joined(Outcomes.executeAll(backend::executeAll, gets));
    }

    /** The item a get found, null when it found none; any other failure is thrown as {@link Failed}. */
    private static Item itemOf(Result result) {
        if (result instanceof Result.Value value) {
            return value.item();
        }
        if (result.status() == Status.NOT_FOUND) {
            return null;
        }
        throw new Failed((Result.Failure) result);
    }

    /** Waits for every stage; completes with DONE, or the first failure among them. */
    static CompletionStage<Result> allDone(List<CompletionStage<Result>> stages) {
        return OperationStream.joined(stages).thenApply(results -> {
            for (Result result : results) {
                if (!result.ok()) {
                    return result;
                }
            }
            return Result.DONE;
        });
    }

    private static CompletionStage<Result> done() {
        return CompletableFuture.completedFuture(Result.DONE);
    }
}
