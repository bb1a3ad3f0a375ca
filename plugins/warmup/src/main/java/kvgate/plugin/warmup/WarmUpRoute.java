package kvgate.plugin.warmup;

import static kvgate.spi.Route.answerOf;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BinaryOperator;
import java.util.function.Function;
import java.util.function.Supplier;
import kvgate.spi.Item;
import kvgate.spi.KeyOrder;
import kvgate.spi.Namespace;
import kvgate.spi.Operation;
import kvgate.spi.Result;
import kvgate.spi.Route;
import kvgate.spi.RouteContext;
import kvgate.spi.Status;
import kvgate.spi.StoreMode;

/**
 * Moves a namespace's items from an old store to a new one while clients use them (mcrouter's WarmUpRoute, made a
 * data migration). The new store answers; a key it lacks is read from the old store and copied into it (a fill) with
 * {@code add}, so a copy never overwrites a newer write. Every change starts by warming its key the same way, then
 * deletes the old store's copy, and only then applies the change to the new store: a change the old store could not
 * forget is never made, so the old store never holds a value older than the new store's that a later read could
 * fall back to. {@link RecentWrites} keeps a fill from putting back a value a concurrent write replaced or deleted.
 */
final class WarmUpRoute implements Route {
    static final String TYPE = "warmup";

    /** What a write does to the old store's copy. */
    enum Writes {
        /** Deletes it. */
        INVALIDATE,
        /** Deletes it, then copies the new store's item back once the write is done, so the old store stays usable. */
        BOTH
    }

    /** How often a read or change retries the warm-up of a key that concurrent writes keep changing. */
    private static final int ATTEMPTS = 3;
    /** A write's answer when a copy it waited for was taken back, so that it changed nothing; it starts again. */
    private static final Result COPY_TAKEN_BACK = Result.failure(Status.TEMPORARY_FAILURE,
            "a copy of the key was taken back from the new store while this write waited for it; retry");

    private final String name;
    private final Route newer;
    private final Route older;
    private final Writes writes;
    private final long fillMaxTtlMillis;
    private final RecentWrites recent;
    private final KeyOrder order = new KeyOrder();
    private final LongAdder filled;
    private final LongAdder expiriesSettled;
    private final LongAdder fillRaced;
    private final LongAdder fillUndone;
    private final LongAdder fillFailed;
    private final LongAdder invalidated;
    private final LongAdder invalidateFailed;
    private final LongAdder mirrored;
    private final LongAdder mirrorFailed;
    private volatile Backfill backfill;

    WarmUpRoute(RouteContext context, Route newer, Route older, Writes writes, long fillMaxTtlMillis,
                int trackedKeys) {
        this.name = context.name();
        this.newer = newer;
        this.older = older;
        this.writes = writes;
        this.fillMaxTtlMillis = fillMaxTtlMillis;
        this.recent = new RecentWrites(trackedKeys);
        this.filled = context.counter("filled");
        this.expiriesSettled = context.counter("backfill_expiry_set");
        this.fillRaced = context.counter("fill_raced");
        this.fillUndone = context.counter("fill_undone");
        this.fillFailed = context.counter("fill_failed");
        this.invalidated = context.counter("invalidated");
        this.invalidateFailed = context.counter("invalidate_failed");
        this.mirrored = context.counter("mirrored");
        this.mirrorFailed = context.counter("mirror_failed");
    }

    /** Starts copying the old store's items in the background; stopped by {@link #retiring} or {@link #close}. */
    void startBackfill(Backfill started) {
        this.backfill = started;
        started.start();
    }

    /** Both stores, new first, and what this operation does with each. */
    @Override
    public Step explain(Operation operation) {
        String says;
        if (Operation.readsItem(operation)) {
            says = "reads new; on a miss reads old and copies the item into new"
                    + (operation instanceof Operation.LeaseGet ? ", then new decides the lease" : "");
        } else if (operation instanceof Operation.KeyOperation) {
            says = "copies the key from old into new if only old has it, deletes old's copy, then changes new"
                    + (writes == Writes.BOTH ? " and copies the result back to old" : "");
        } else if (operation instanceof Operation.Tag || operation instanceof Operation.Index) {
            says = "writes the entry to new" + (writes == Writes.BOTH ? " and to old" : "");
        } else if (operation instanceof Operation.Flush || operation instanceof Operation.Untag
                || operation instanceof Operation.Unindex || operation instanceof Operation.DropTags) {
            says = "sends it to both";
        } else {
            says = "answers from both, new's answer winning where both have a key";
        }
        return new Step(says, List.of(newer, older));
    }

    @Override
    public CompletionStage<Result> execute(Operation operation) {
        if (operation instanceof Operation.KeyOperation keyed) {
            // One key's operations in the order they came: a get pipelined behind a set reads what the set stored.
            return order.inOrder(id(keyed.namespace(), keyed.key()), () -> run(operation));
        }
        return run(operation);
    }

    private CompletionStage<Result> run(Operation operation) {
        return operation.accept(new Operation.Visitor<>() {
            @Override
            public CompletionStage<Result> get(Operation.Get get) {
                return lookUp(get.namespace(), get.key(), 1).thenApply(Lookup::answer);
            }

            @Override
            public CompletionStage<Result> store(Operation.Store store) {
                return change(store);
            }

            @Override
            public CompletionStage<Result> delete(Operation.Delete delete) {
                // A CAS names the new store's item, which a key still only in the old store does not have yet.
                return untilNotTakenBack(() -> delete.cas() == 0 ? deleteBoth(delete)
                        : afterWarmUp(delete, () -> deleteBoth(delete)), 1);
            }

            @Override
            public CompletionStage<Result> arithmetic(Operation.Arithmetic arithmetic) {
                return change(arithmetic);
            }

            @Override
            public CompletionStage<Result> touch(Operation.Touch touch) {
                return change(touch);
            }

            @Override
            public CompletionStage<Result> leaseGet(Operation.LeaseGet get) {
                if (!get.readsOnly()) {
                    return change(get); // a touch or a placeholder changes the item
                }
                // A read: the new store decides the lease of a key it holds. A key it lacks is warmed as a get warms
                // it, then asked again; one the read could not warm is answered as read, without a lease to win.
                return answerOf(newer, get).thenCompose(fresh -> fresh.status() != Status.NOT_FOUND ? done(fresh)
                        : lookUp(get.namespace(), get.key(), 1).thenCompose(lookup -> lookup.unwarmed() != null
                                ? done(lookup.answer()) : answerOf(newer, get)));
            }

            @Override
            public CompletionStage<Result> invalidate(Operation.Invalidate invalidate) {
                return change(invalidate);
            }

            @Override
            public CompletionStage<Result> flush(Operation.Flush flush) {
                recent.beginFlush();
                return both(flush, WarmUpRoute::eitherFailure).whenComplete((result, error) -> recent.endFlush());
            }

            @Override
            public CompletionStage<Result> scan(Operation.Scan scan) {
                return both(scan, (fresh, old) -> union(scan, fresh, old));
            }

            @Override
            public CompletionStage<Result> tag(Operation.Tag tag) {
                return written(tag);
            }

            @Override
            public CompletionStage<Result> index(Operation.Index index) {
                return written(index);
            }

            @Override
            public CompletionStage<Result> untag(Operation.Untag untag) {
                return both(untag, WarmUpRoute::eitherRemoved);
            }

            @Override
            public CompletionStage<Result> dropTags(Operation.DropTags dropTags) {
                return both(dropTags, WarmUpRoute::eitherFailure);
            }

            @Override
            public CompletionStage<Result> unindex(Operation.Unindex unindex) {
                return both(unindex, WarmUpRoute::eitherFailure);
            }

            @Override
            public CompletionStage<Result> taggedKeys(Operation.TaggedKeys query) {
                return taggedKeysOfBoth(query);
            }

            @Override
            public CompletionStage<Result> search(Operation.Search search) {
                return both(search, WarmUpRoute::keysOfBoth);
            }
        });
    }

    // ---- reads and fills

    /**
     * What a read through the node answers, and whether the key is warm: held by the new store, or by neither.
     *
     * @param answer the new store's item (after a fill, with the new store's CAS), NOT_FOUND, or a failure
     * @param unwarmed null when the key is warm; else why it is not, as the failure a change must answer with
     */
    private record Lookup(Result answer, Result unwarmed) {
    }

    /**
     * Reads from the new store; on a miss, from the old one, copying what it holds into the new one. When the old
     * store misses too, the new store is asked again: between the two reads a write may have moved the key (copied it
     * into the new store, then deleted the old store's copy), and a key never absent from both must not be answered
     * NOT_FOUND. A key that only leaves the old store once the new one holds it is absent from both at some moment
     * of this read when the second answer is a miss too.
     */
    private CompletionStage<Lookup> lookUp(Namespace namespace, byte[] key, int attempt) {
        long start = recent.now();
        Operation.Get get = new Operation.Get(namespace, key);
        return answerOf(newer, get).thenCompose(fresh -> fresh.status() != Status.NOT_FOUND
                ? done(warmed(fresh))
                // A failure of the old store is answered as such: it may hold the key, so NOT_FOUND would be a lie.
                : answerOf(older, get).thenCompose(old -> {
                    if (old instanceof Result.Value value) {
                        return fill(namespace, key, value.item(), start)
                                .thenCompose(copy -> afterFill(namespace, key, copy, attempt));
                    }
                    if (old.status() != Status.NOT_FOUND) {
                        return done(new Lookup(old, old));
                    }
                    return answerOf(newer, get).thenApply(WarmUpRoute::warmed);
                }));
    }

    /** The new store's answer as a lookup: warm unless the new store failed. */
    private static Lookup warmed(Result fresh) {
        return new Lookup(fresh, fresh.ok() || fresh.status() == Status.NOT_FOUND ? null : fresh);
    }

    private CompletionStage<Lookup> afterFill(Namespace namespace, byte[] key, Copy copy, int attempt) {
        switch (copy.outcome()) {
            case COPIED:
                return done(new Lookup(new Result.Value(copy.item()), null));
            case FAILED:
                // The read itself is right; only the copy failed, and the next read tries again.
                return done(new Lookup(new Result.Value(copy.item()), copy.failure()));
            default:
                if (attempt < ATTEMPTS) {
                    return lookUp(namespace, key, attempt + 1); // the new store now has the writer's item, or none
                }
                // A write of the key overlapped this read all along: the item read is a fair answer to a read that
                // overlapped it, but a change must not build on it.
                return done(new Lookup(new Result.Value(copy.item()), Result.failure(Status.TEMPORARY_FAILURE,
                        "concurrent writes to the key kept it from being copied to the new store; retry")));
        }
    }

    /**
     * Copies {@code item}, read from the old store after {@code start}, into the new store with {@code add}, unless a
     * write of the key started or ended since. After the copy lands, the old store is read again: if its item changed
     * or went meanwhile (a write through another gateway), the old store failed to answer, or a flush started, the
     * copy is taken back with a CAS delete, which leaves alone any newer write that replaced it. A write of the key
     * through this node that started while the copy travelled is no reason to take it back: it waits for the copy to
     * land, may already have read it (a change warms its key first) and applies after it, and a delete removes the
     * copy itself. A write waiting for a copy that is taken back learns so, and starts again ({@link #asWrite}).
     */
    CompletionStage<Copy> fill(Namespace namespace, byte[] key, Item item, long start) {
        String id = id(namespace, key);
        if (!recent.beginFill(id, start)) {
            fillRaced.increment();
            return done(Copy.of(Copy.Outcome.RACED, item));
        }
        Operation.Store add = new Operation.Store(namespace, key, StoreMode.ADD, item.value(), item.flags(),
                cappedExpiry(item.expiresAt()), 0);
        CompletionStage<Copy> copy = answerOf(newer, add).thenCompose(added -> {
            if (added instanceof Result.Stored stored) {
                Item copied = new Item(item.value(), item.flags(), stored.cas(), add.expiresAt());
                return answerOf(older, new Operation.Get(namespace, key)).thenCompose(again -> {
                    boolean unchanged = again instanceof Result.Value value && value.item().cas() == item.cas()
                            && !recent.flushedSince(start);
                    if (unchanged) {
                        filled.increment();
                        return done(Copy.of(Copy.Outcome.COPIED, copied));
                    }
                    fillUndone.increment();
                    return answerOf(newer, new Operation.Delete(namespace, key, stored.cas()))
                            .thenApply(undone -> Copy.of(Copy.Outcome.RACED, item));
                });
            }
            if (added.status() == Status.EXISTS) {
                return done(Copy.of(Copy.Outcome.PRESENT, item));
            }
            fillFailed.increment();
            return done(Copy.failed(item, added));
        });
        // Past beginFill, RACED means the copy was taken back; a failure leaves unknown whether it is there.
        return copy.whenComplete((result, error) -> recent.endFill(id,
                error != null || result.outcome() == Copy.Outcome.RACED));
    }

    /** The moment a backfill's listing begins, for {@link #copy}: writes are told apart from it. */
    long listingStarts() {
        return recent.now();
    }

    /**
     * Copies one key of the old store into the new one, if the new one lacks it: the backfill's step. Where the new
     * one holds it already, as the copy a read made, and the listing told the expiry a read could not (okuyama's and
     * memcached's gets do not tell it; their listings do), the copy is given that expiry.
     *
     * @param listedExpiry the item's expiry as the old store's listing gave it: taken when the read does not tell one
     * @param listedAt when the listing that gave the expiry began ({@link #listingStarts}); negative when the key was
     *     not listed with its expiry (a key file, a tag's keys)
     */
    CompletionStage<Copy> copy(Namespace namespace, byte[] key, long listedExpiry, long listedAt) {
        long start = recent.now();
        return answerOf(older, new Operation.Get(namespace, key)).thenCompose(old -> {
            if (old instanceof Result.Value value) {
                Item item = value.item();
                // The read did not tell the expiry the listing did: a copy a read made may lack it too.
                boolean settle = listedAt >= 0 && item.expiresAt() == Item.NEVER && listedExpiry != Item.NEVER;
                if (settle) {
                    item = new Item(item.value(), item.flags(), item.cas(), listedExpiry);
                }
                Item read = item;
                return fill(namespace, key, item, start).thenCompose(copy -> !settle
                        || copy.outcome() != Copy.Outcome.PRESENT ? done(copy)
                        : settleExpiry(namespace, key, read, listedAt).thenApply(ignored -> copy));
            }
            return done(old.status() == Status.NOT_FOUND ? Copy.of(Copy.Outcome.ABSENT, null) : Copy.failed(null, old));
        });
    }

    /**
     * Gives the new store's copy of {@code old} the expiry the listing gave, when the copy is still the old item's
     * (same value and flags) with another expiry, and no write of the key started or ended on this gateway since the
     * listing began: a read copied it before the backfill came, and could not tell the expiry. Stored with the CAS of
     * the copy read, so that a write in between wins.
     */
    private CompletionStage<Void> settleExpiry(Namespace namespace, byte[] key, Item old, long listedAt) {
        return answerOf(newer, new Operation.Get(namespace, key)).thenCompose(fresh -> {
            if (!(fresh instanceof Result.Value value) || value.item().expiresAt() == old.expiresAt()
                    || value.item().flags() != old.flags() || !Arrays.equals(value.item().value(), old.value())) {
                return done(null);
            }
            String id = id(namespace, key);
            if (!recent.beginFill(id, listedAt)) {
                return done(null);
            }
            return answerOf(newer, new Operation.Store(namespace, key, StoreMode.SET, old.value(), old.flags(),
                    cappedExpiry(old.expiresAt()), value.item().cas())).handle((stored, error) -> {
                        recent.endFill(id, false);
                        if (stored != null && stored.ok()) {
                            expiriesSettled.increment();
                        }
                        return null;
                    });
        });
    }

    /**
     * Whether a key reads the same in both stores (value and flags), for the backfill's verification. A key gone from
     * the old store is the same whatever the new one holds: a write through this node took it out, or it expired. One
     * the old store has and the new one lacks or holds otherwise differs, and so does a read that fails.
     */
    CompletionStage<Boolean> compare(Namespace namespace, byte[] key) {
        Operation.Get get = new Operation.Get(namespace, key);
        return answerOf(older, get).thenCompose(old -> answerOf(newer, get).thenApply(fresh -> {
            if (old.status() == Status.NOT_FOUND) {
                return true;
            }
            return old instanceof Result.Value was && fresh instanceof Result.Value now
                    && Arrays.equals(was.item().value(), now.item().value())
                    && was.item().flags() == now.item().flags();
        }));
    }

    /** What the backfill is doing or how it ended; empty without a backfill. */
    @Override
    public String status() {
        Backfill running = backfill;
        return running == null ? "" : running.status();
    }

    /** Asks the old store (a listing, a tag's keys): the backfill's sources of keys. */
    CompletionStage<Result> askOld(Operation operation) {
        return answerOf(older, operation);
    }

    /** Tags a key in the new store, as the backfill copies tags' keys. */
    CompletionStage<Result> tagNew(Namespace namespace, byte[] key, List<byte[]> tags) {
        return answerOf(newer, new Operation.Tag(namespace, key, tags));
    }

    private long cappedExpiry(long expiresAt) {
        if (fillMaxTtlMillis == 0) {
            return expiresAt;
        }
        long cap = System.currentTimeMillis() + fillMaxTtlMillis;
        return expiresAt == Item.NEVER ? cap : Math.min(expiresAt, cap);
    }

    // ---- changes

    /** A change of one key: warmed first, so it applies to the item the key really holds. */
    private CompletionStage<Result> change(Operation.KeyOperation operation) {
        return untilNotTakenBack(() -> afterWarmUp(operation, () -> asWrite(operation, () -> invalidateOld(operation,
                old -> answerOf(newer, operation).thenCompose(result -> result.ok() && writes == Writes.BOTH
                        ? copyBack(operation, result) : done(result))))), 1);
    }

    /**
     * Runs a write, warm-up included, and again while it answers {@link #COPY_TAKEN_BACK}, up to {@link #ATTEMPTS}
     * times in all: a fresh warm-up then reads what the stores hold after the copy went.
     */
    private CompletionStage<Result> untilNotTakenBack(Supplier<CompletionStage<Result>> write, int attempt) {
        return write.get().thenCompose(result -> result == COPY_TAKEN_BACK && attempt < ATTEMPTS
                ? untilNotTakenBack(write, attempt + 1) : done(result));
    }

    /** Runs {@code then} once the key of {@code operation} is warm; answers the warm-up's failure otherwise. */
    private CompletionStage<Result> afterWarmUp(Operation.KeyOperation operation,
                                                Supplier<CompletionStage<Result>> then) {
        return lookUp(operation.namespace(), operation.key(), 1).thenCompose(lookup -> lookup.unwarmed() == null
                ? then.get() : done(lookup.unwarmed()));
    }

    /**
     * Runs a write of the key of {@code operation} as {@link RecentWrites} must know of it. When a copy of the key
     * the write waited for was taken back (the old store changed, failed or was flushed meanwhile), the write may
     * have warmed its key by reading that copy: it then changes nothing and answers {@link #COPY_TAKEN_BACK}.
     */
    private CompletionStage<Result> asWrite(Operation.KeyOperation operation,
                                            Supplier<CompletionStage<Result>> write) {
        String id = id(operation.namespace(), operation.key());
        return recent.beginWrite(id).thenCompose(copyUndone -> copyUndone ? done(COPY_TAKEN_BACK) : write.get())
                .whenComplete((result, error) -> recent.endWrite(id));
    }

    /**
     * Deletes the old store's copy of the key, then runs {@code then} with the old store's answer (OK or NOT_FOUND).
     * When the old store cannot, nothing more is done and the write answers with that failure: the old store might
     * otherwise keep a value older than the new store's, served again the day the new store loses the key (expiry,
     * eviction).
     */
    private CompletionStage<Result> invalidateOld(Operation.KeyOperation operation,
                                                  Function<Result, CompletionStage<Result>> then) {
        return answerOf(older, new Operation.Delete(operation.namespace(), operation.key(), 0)).thenCompose(old -> {
            if (old.ok()) {
                invalidated.increment();
            } else if (old.status() != Status.NOT_FOUND) {
                invalidateFailed.increment();
                return done(old);
            }
            return then.apply(old);
        });
    }

    /**
     * Deletes from both stores, the old one first (see {@link #invalidateOld}); OK when either held the key. The
     * answer is the new store's removed item, else the old store's.
     */
    private CompletionStage<Result> deleteBoth(Operation.Delete delete) {
        return asWrite(delete, () -> invalidateOld(delete, old -> answerOf(newer, delete).thenApply(fresh ->
                fresh.status() == Status.NOT_FOUND && delete.cas() == 0 ? old : fresh)));
    }

    /**
     * With {@code writes = both}: copies the item the new store holds after {@code operation} back into the old
     * store. A failed copy leaves the old store without the key (it was deleted first), never with a stale value, so
     * it is counted, not answered.
     */
    private CompletionStage<Result> copyBack(Operation.KeyOperation operation, Result result) {
        CompletionStage<Result> item;
        // What a store wrote is the store's own, unless the new store kept part of it: the old value (append,
        // prepend) or the old expiry (Preserve TTL, a stale value); then it is read back.
        if (operation instanceof Operation.Store store && store.mode() != StoreMode.APPEND
                && store.mode() != StoreMode.PREPEND && !store.keepExpiry() && !store.staleIfOlder()) {
            item = done(new Result.Value(new Item(store.value(), store.flags(), 0, store.expiresAt())));
        } else if (result instanceof Result.Value touched) {
            item = done(touched);
        } else if (result instanceof Result.Leased leased) {
            item = done(new Result.Value(leased.item()));
        } else {
            item = answerOf(newer, new Operation.Get(operation.namespace(), operation.key()));
        }
        return item.thenCompose(current -> {
            if (!(current instanceof Result.Value value)) {
                return done(result);
            }
            Item copy = value.item();
            return answerOf(older, new Operation.Store(operation.namespace(), operation.key(), StoreMode.SET,
                    copy.value(), copy.flags(), copy.expiresAt(), 0)).thenApply(stored -> {
                        (stored.ok() ? mirrored : mirrorFailed).increment();
                        return result;
                    });
        });
    }

    /** A tag or index entry: kept by the new store, and by the old one too with {@code writes = both}. */
    private CompletionStage<Result> written(Operation operation) {
        if (writes == Writes.INVALIDATE) {
            return answerOf(newer, operation);
        }
        return both(operation, WarmUpRoute::eitherFailure);
    }

    // ---- operations on both stores

    /** Sends {@code operation} to both stores at once and combines the answers (new store's first). */
    private CompletionStage<Result> both(Operation operation, BinaryOperator<Result> combine) {
        CompletableFuture<Result> fresh = answerOf(newer, operation).toCompletableFuture();
        CompletableFuture<Result> old = answerOf(older, operation).toCompletableFuture();
        return fresh.thenCombine(old, combine);
    }

    /** The new store's failure, else the old store's, else the new store's success. */
    private static Result eitherFailure(Result fresh, Result old) {
        return !fresh.ok() ? fresh : !old.ok() ? old : fresh;
    }

    /** OK when either store did it; NOT_FOUND when neither had it; a failure when either failed. */
    private static Result eitherRemoved(Result fresh, Result old) {
        if (!definite(fresh)) {
            return fresh;
        }
        if (!definite(old)) {
            return old;
        }
        return fresh.ok() ? fresh : old;
    }

    /** Whether a store said what it holds under a key, the item or that it has none, rather than failing. */
    private static boolean definite(Result result) {
        return result.ok() || result.status() == Status.NOT_FOUND;
    }

    /** A scan sees the items of both stores, the new store's item where both hold a key. */
    private static Result union(Operation.Scan scan, Result fresh, Result old) {
        if (!(fresh instanceof Result.Entries freshEntries)) {
            return fresh;
        }
        if (!(old instanceof Result.Entries oldEntries)) {
            return old;
        }
        List<Result.Entry> entries = eachKeyOnce(freshEntries.entries(), oldEntries.entries(), Result.Entry::key);
        if (entries.size() > scan.limit()) {
            return Result.failure(Status.TOO_LARGE, "the namespace holds more than " + scan.limit() + " items");
        }
        return new Result.Entries(entries);
    }

    /** The keys either store answered, each once, the new store's first. */
    private static Result keysOfBoth(Result fresh, Result old) {
        Result failure = eitherFailure(fresh, old);
        if (!failure.ok()) {
            return failure;
        }
        return new Result.Keys(eachKeyOnce(((Result.Keys) fresh).keys(), ((Result.Keys) old).keys(), key -> key));
    }

    /** The new store's elements, then those of the old store whose key the new store's did not have. */
    private static <T> List<T> eachKeyOnce(List<T> fresh, List<T> old, Function<T, byte[]> keyOf) {
        Map<String, T> byKey = new LinkedHashMap<>();
        for (List<T> elements : List.of(fresh, old)) {
            for (T element : elements) {
                byKey.putIfAbsent(latin1(keyOf.apply(element)), element);
            }
        }
        return new ArrayList<>(byKey.values());
    }

    /**
     * A tag's keys as both stores list them. A key tagged in the old store whose item has since moved to the new
     * one is removed as far as the old store knows; so both are asked for removed keys too, and when the caller
     * wants only live ones, each key is looked up through this node.
     */
    private CompletionStage<Result> taggedKeysOfBoth(Operation.TaggedKeys query) {
        Operation.TaggedKeys everyKey = new Operation.TaggedKeys(query.namespace(), query.tag(), true);
        CompletionStage<Result> listed = both(everyKey, WarmUpRoute::keysOfBoth);
        if (query.includeRemoved()) {
            return listed;
        }
        return listed.thenCompose(all -> {
            if (!(all instanceof Result.Keys keys)) {
                return done(all);
            }
            List<CompletableFuture<Lookup>> lookups = new ArrayList<>();
            for (byte[] key : keys.keys()) {
                lookups.add(lookUp(query.namespace(), key, ATTEMPTS).toCompletableFuture());
            }
            return CompletableFuture.allOf(lookups.toArray(new CompletableFuture<?>[0])).thenApply(ignored -> {
                List<byte[]> live = new ArrayList<>();
                for (int i = 0; i < lookups.size(); i++) {
                    Result answer = lookups.get(i).join().answer();
                    if (answer.ok()) {
                        live.add(keys.keys().get(i));
                    } else if (answer.status() != Status.NOT_FOUND) {
                        return answer;
                    }
                }
                return new Result.Keys(live);
            });
        });
    }

    // ---- plumbing

    /** No more backfill copies start; the reload waits for those under way before it closes the stores. */
    @Override
    public void retiring() {
        close();
    }

    @Override
    public void close() {
        Backfill running = backfill;
        if (running != null) {
            running.stop();
        }
    }

    /** A key's identity for {@link RecentWrites}: namespace names hold no NUL, so the pair maps to one string. */
    private static String id(Namespace namespace, byte[] key) {
        return namespace.name() + '\0' + latin1(key);
    }

    /** Bytes as a string, one char per byte, for use as a map key. */
    private static String latin1(byte[] bytes) {
        return new String(bytes, StandardCharsets.ISO_8859_1);
    }

    private static <T> CompletionStage<T> done(T value) {
        return CompletableFuture.completedFuture(value);
    }

    @Override
    public String toString() {
        return "route " + name + " (" + TYPE + ")";
    }
}
