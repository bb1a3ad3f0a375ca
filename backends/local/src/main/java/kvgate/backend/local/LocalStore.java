package kvgate.backend.local;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongSupplier;
import kvgate.spi.Backend;
import kvgate.spi.BackendContext;
import kvgate.spi.Capability;
import kvgate.spi.Item;
import kvgate.spi.ItemTransition;
import kvgate.spi.Namespace;
import kvgate.spi.Operation;
import kvgate.spi.Result;
import kvgate.spi.Settings;
import kvgate.spi.Status;
import org.h2.mvstore.MVMap;
import org.h2.mvstore.MVStore;
import org.h2.mvstore.type.LongDataType;
import org.h2.mvstore.type.StringDataType;

/**
 * The local store. Each namespace's {@link Items} are one MVStore map from key to item in the store file
 * ({@link FileItems}), or, with {@code path = :memory:}, a hash table in memory ({@link MemoryItems}): any byte
 * sequence is a key, and an item is one array of its fields and value.
 *
 * <p>Every key operation runs {@link ItemTransition} under a lock for its key: the reads and writes are in memory
 * and take microseconds, so the lock is held only that long, and no two writers of one key interleave. Durability
 * is decided afterwards: with {@code commit_interval_ms = 0} the acknowledgement waits for the next group commit;
 * otherwise MVStore's background writer commits at most that many milliseconds later.
 */
final class LocalStore implements Backend {
    private static final String NAMESPACE_PREFIX = "ns:";
    private static final String META = "kvgate:meta";
    private static final String CAS_HIGH_WATER = "cas";
    private static final int STRIPES = 1024;
    /** How often the file is forced to disk in the background when commits are not forced each. */
    private static final long BACKGROUND_SYNC_MILLIS = 25;
    private static final System.Logger LOG = System.getLogger(LocalStore.class.getName());

    /** The store file; null in memory, where nothing is kept but the namespaces' tables. */
    private final MVStore store;
    private final boolean inMemory;
    private final MVMap<String, Long> meta;
    private final Map<Namespace, Items> namespaces = new ConcurrentHashMap<>();
    /**
     * The namespace looked up last, and its items: most requests in a row name the same namespace, and this spares
     * them the map's lookup. A plain field, as threads may each see an older pair: a namespace's items never change.
     */
    private NamespaceItems lastNamespace;
    /** The file's write locks, shared by its namespaces; none in memory, where a table locks its own segments. */
    private final Object[] stripes;
    /** The seed of the tables' hash, chosen per process so that clients cannot aim keys at one probe sequence. */
    private final long hashSeed = ThreadLocalRandom.current().nextLong();
    private final Clock clock;
    private final int maxItemSize;
    private final CasClock casClock;
    /** {@code casClock::next} and {@code clock::millis}, made once rather than per request. */
    private final LongSupplier newCas;
    private final LongSupplier clockMillis;
    private final GroupCommit groupCommit;
    private final ScheduledExecutorService housekeeping;
    /** How far ahead of the clock the saved CAS mark reaches, in milliseconds ({@link #saveCasMark}). */
    private final long casMarkAheadMillis;
    /** Set by close(): the purge stops at the next item instead of being interrupted (see close()). */
    private volatile boolean closing;
    /** The store's version at the last background force: an idle store is not forced again. */
    private long forcedVersion = -1;
    /**
     * The first failure to write or force the store file, or null. Once set, every request fails until a restart:
     * a write whose commit or force failed may be in the file or not, and after a failed force even a later force
     * that succeeds proves nothing of the writes before it (the system may have dropped them with the error). Its
     * value would stay readable meanwhile, though its writer was told it failed. As MVStore itself does when a write
     * of the file fails, which closes the store.
     */
    private final AtomicReference<Throwable> failure;
    /** In memory, what the tables may take together ({@code memory_limit}); null for the file. */
    private final MemoryBudget budget;

    private LocalStore(MVStore store, AtomicReference<Throwable> failure, BackendContext context, Settings settings) {
        this.store = store;
        this.failure = failure;
        this.inMemory = store == null;
        this.clock = context.clock();
        this.maxItemSize = context.maxItemSize();
        this.stripes = new Object[inMemory ? 0 : STRIPES];
        for (int i = 0; i < stripes.length; i++) {
            stripes[i] = new Object();
        }
        this.meta = inMemory ? null : store.openMap(META, new MVMap.Builder<String, Long>()
                .keyType(StringDataType.INSTANCE).valueType(LongDataType.INSTANCE));
        this.casClock = new CasClock(clock, inMemory ? 0L : meta.getOrDefault(CAS_HIGH_WATER, 0L));
        this.newCas = casClock::next;
        long commitInterval = settings.integer("commit_interval_ms");
        this.casMarkAheadMillis = 2 * commitInterval + 1000;
        this.clockMillis = clock::millis;
        boolean fsync = settings.bool("fsync");
        this.groupCommit = inMemory || commitInterval > 0 ? null : new GroupCommit(context.name(), () -> commit(fsync));
        this.budget = inMemory ? new MemoryBudget(memoryLimit(settings.size("memory_limit"), context), clock) : null;
        // Two threads: a purge of a large table runs for seconds, and the memory budget's clock must go on meanwhile.
        this.housekeeping = Executors.newScheduledThreadPool(2, runnable -> {
            Thread thread = new Thread(runnable, "kvgate-" + context.name() + "-housekeeping");
            thread.setDaemon(true);
            return thread;
        });
        repeat(this::purgeExpired, settings.integer("purge_interval_ms"), "purge");
        if (inMemory) {
            repeat(budget::tick, 250, "the memory budget's clock");
        } else {
            keepFileSmall(fsync, commitInterval);
            if (groupCommit == null) {
                // MVStore's writer commits items on its own, never the mark: it is saved at its pace instead.
                repeat(this::saveCasMark, commitInterval, "saving the CAS mark");
            }
        }
    }

    /**
     * The memory limit of a store in memory: the one set, or with 0, half of the JVM's largest heap, which leaves the
     * other half for what the heap holds besides items (requests under way, garbage not yet collected). A limit
     * set too high for the heap, or too low for the largest value, is warned of.
     */
    private static long memoryLimit(long configured, BackendContext context) {
        long heap = Runtime.getRuntime().maxMemory();
        long limit = configured == 0 ? heap / 2 : configured;
        if (configured > heap / 10 * 9) {
            LOG.log(System.Logger.Level.WARNING, context.name() + ": memory_limit of " + (configured >> 20) + " MiB is "
                    + "more than 90% of the JVM's largest heap (" + (heap >> 20) + " MiB): the heap may run out before "
                    + "the store evicts anything; raise -Xmx or lower the limit");
        }
        if (limit < 16L * context.maxItemSize()) {
            LOG.log(System.Logger.Level.WARNING, context.name() + ": memory_limit of " + (limit >> 10) + " KiB holds "
                    + "fewer than 16 values of max_item_size (" + (context.maxItemSize() >> 10) + " KiB): one large "
                    + "value evicts much of the store, and one larger than the whole limit is refused as too large");
        }
        return limit;
    }

    /**
     * Runs {@code task} on a housekeeping thread every {@code everyMillis}; a round that fails is logged, and the
     * next one tries again (an exception would otherwise end the schedule).
     */
    private void repeat(Runnable task, long everyMillis, String what) {
        housekeeping.scheduleWithFixedDelay(() -> {
            try {
                task.run();
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.WARNING, what + " failed", e);
            }
        }, everyMillis, everyMillis, TimeUnit.MILLISECONDS);
    }

    /**
     * Saves the CAS mark a restart starts above: not the highest CAS handed out, which items committed with this
     * very commit (or MVStore's next) may already exceed, but the clock's values a little ahead, further than any
     * item written before the next save can be committed ({@link CasClock#markAhead}), so that after a crash no CAS
     * repeats even with a clock that went back.
     */
    private void saveCasMark() {
        // Saved from more than one thread (the committer, the purge, the interval's schedule): two saves may land
        // in the other order, the later mark a little lower, still ahead of the clock by the whole margin.
        meta.put(CAS_HIGH_WATER, casClock.markAhead(casMarkAheadMillis));
    }

    /**
     * How long space a commit freed is kept before a later commit may reuse it. MVStore keeps it 45 s by default,
     * for a power loss that finds the disk without the newer chunks: with a commit per write burst (about 24 KiB
     * each, whatever the write's size), that is gigabytes of file under a steady writer for a few megabytes of items.
     * The space may be reused once the commits that freed it are on the disk: at once when every commit is forced,
     * else once the background force (every {@value #BACKGROUND_SYNC_MILLIS} ms) has run past them.
     */
    private void keepFileSmall(boolean fsync, long commitIntervalMillis) {
        if (groupCommit != null && fsync) {
            store.setRetentionTime(0);
            return;
        }
        // With fsync and MVStore's own writer (an interval), the file is forced at that interval instead.
        long every = fsync ? Math.max(1, commitIntervalMillis) : BACKGROUND_SYNC_MILLIS;
        store.setRetentionTime((int) Math.min(Integer.MAX_VALUE, 5 * every));
        repeat(this::forceToDisk, every, "forcing the store file to disk");
    }

    /** Forces what is written to the disk; with {@code fsync} and an interval, what MVStore's writer committed. */
    private void forceToDisk() {
        if (closing || store.isClosed()) {
            return;
        }
        long version = store.getCurrentVersion();
        if (version != forcedVersion) {
            failingTheStore(store::sync);
            forcedVersion = version;
        }
    }

    static LocalStore open(BackendContext context) {
        return open(context, "");
    }

    /**
     * Opens the store; {@code scheme} goes before the file's name, for MVStore's file systems (a test's, which fails
     * on demand, is the only one used).
     */
    static LocalStore open(BackendContext context, String scheme) {
        Settings settings = context.settings();
        String path = settings.text("path");
        if (path.equals(LocalBackendFactory.IN_MEMORY)) {
            return new LocalStore(null, new AtomicReference<>(), context, settings);
        }
        Path directory = Path.of(path);
        try {
            Files.createDirectories(directory);
        } catch (IOException e) {
            throw new IllegalStateException("cannot create the store directory " + directory.toAbsolutePath()
                    + ": " + e.getMessage(), e);
        }
        AtomicReference<Throwable> failure = new AtomicReference<>();
        MVStore.Builder builder = new MVStore.Builder()
                .fileName(scheme + directory.resolve("kvgate.mv.db"))
                .cacheSize(settings.intValue("cache_mb"))
                .backgroundExceptionHandler((thread, error) -> failure.compareAndSet(null, error));
        int interval = settings.intValue("commit_interval_ms");
        if (interval == 0) {
            // The group committer decides when to commit: MVStore's own writer would only add commits nobody waits
            // for, and its commit once unsaved changes pass a size would run on a network thread, in the middle
            // of a write, with the key's lock held.
            builder.autoCommitDisabled().autoCommitBufferSize(0);
        }
        MVStore store = builder.open();
        if (interval > 0) {
            store.setAutoCommitDelay(interval); // MVStore's background writer commits at that interval
        }
        return new LocalStore(store, failure, context, settings);
    }

    @Override
    public Set<Capability> capabilities() {
        Set<Capability> capabilities = EnumSet.of(Capability.SCAN, Capability.KEEP_EXPIRY, Capability.LEASES,
                Capability.ARITHMETIC_EXPIRY, Capability.CHOSEN_CAS);
        if (!inMemory) {
            capabilities.add(Capability.DURABLE);
        }
        return capabilities;
    }

    @Override
    public CompletionStage<Result> execute(Operation operation) {
        Throwable failed = failure.get();
        if (failed != null) {
            return CompletableFuture.completedFuture(Result.failure(Status.BACKEND_ERROR,
                    "the store file failed (" + failed + "); restart the gateway once the disk is sound"));
        }
        return operation.accept(executor);
    }

    /**
     * Carries out a burst in order, as {@link #execute} would one by one; in memory, first reads ahead the table
     * memory of every key in it. A lookup in a table larger than the processor's cache is cache misses in a row (the
     * home slot and its tag, then the entry a tag leads to), each waited for before the next can start. Read ahead in
     * passes over the whole burst ({@link EntryTable#readAhead}), the misses of different keys overlap, and the
     * lookups proper then find their lines in the cache.
     */
    @Override
    public List<CompletionStage<Result>> executeAll(List<Operation> operations) {
        if (inMemory && operations.size() > 1) {
            EntryTable[] tables = new EntryTable[operations.size()];
            int[] hashes = new int[tables.length];
            for (int i = 0; i < tables.length; i++) {
                if (operations.get(i) instanceof Operation.KeyOperation keyed
                        && existingItems(keyed.namespace()) instanceof MemoryItems items) {
                    EntryTable table = items.table();
                    tables[i] = table;
                    hashes[i] = table.hash(keyed.key());
                }
            }
            if (EntryTable.readAhead(tables, hashes) == Integer.MIN_VALUE) {
                // Never meant to matter: a use of what was read, so that the compiler keeps the reads.
                Thread.onSpinWait();
            }
        }
        return Backend.super.executeAll(operations);
    }

    /** Carries out each kind of operation; one for the store's life rather than one per request. */
    private final Operation.Visitor<CompletionStage<Result>> executor = new Operation.Visitor<>() {
        @Override
        public CompletionStage<Result> get(Operation.Get get) {
            // A read needs no lock: it sees either the whole old or the whole new item.
            Items items = existingItems(get.namespace());
            return CompletableFuture.completedFuture(ItemTransition.read(items == null ? null : items.get(get.key()),
                    clockMillis));
        }

        @Override
        public CompletionStage<Result> store(Operation.Store store) {
            return mutate(store);
        }

        @Override
        public CompletionStage<Result> delete(Operation.Delete delete) {
            return mutate(delete);
        }

        @Override
        public CompletionStage<Result> arithmetic(Operation.Arithmetic arithmetic) {
            return mutate(arithmetic);
        }

        @Override
        public CompletionStage<Result> touch(Operation.Touch touch) {
            return mutate(touch);
        }

        @Override
        public CompletionStage<Result> leaseGet(Operation.LeaseGet get) {
            // Most lease gets only read: the item found, neither stale nor near enough its expiry to be won, or
            // already won. The transition decided on a read without the lock says so; one that would write is decided
            // again under the lock, on the item as it is then.
            if (get.readsOnly()) {
                Items items = existingItems(get.namespace());
                ItemTransition read = ItemTransition.apply(get, items == null ? null : items.get(get.key()),
                        clock.millis(), () -> {
                            throw new AssertionError("a lease get that only reads makes no item");
                        }, maxItemSize);
                if (read.effect() == ItemTransition.Effect.NONE) {
                    return CompletableFuture.completedFuture(read.result());
                }
            }
            return mutate(get);
        }

        @Override
        public CompletionStage<Result> invalidate(Operation.Invalidate invalidate) {
            return mutate(invalidate);
        }

        @Override
        public CompletionStage<Result> flush(Operation.Flush flush) {
            Items items = existingItems(flush.namespace());
            if (items == null) {
                return CompletableFuture.completedFuture(Result.DONE);
            }
            items.clear();
            return durable(Result.DONE);
        }

        @Override
        public CompletionStage<Result> scan(Operation.Scan scan) {
            return CompletableFuture.completedFuture(LocalStore.this.scan(scan));
        }
    };

    private Result scan(Operation.Scan scan) {
        Items items = existingItems(scan.namespace());
        if (items == null) {
            return new Result.Entries(List.of());
        }
        List<Result.Entry> entries = new ArrayList<>();
        boolean all = items.forEachLive(clock.millis(), (key, item) -> {
            if (entries.size() == scan.limit()) {
                return false;
            }
            entries.add(new Result.Entry(key, item));
            return true;
        });
        return all ? new Result.Entries(entries)
                : Result.failure(Status.TOO_LARGE, "the namespace holds more than " + scan.limit() + " items");
    }

    private CompletionStage<Result> mutate(Operation.KeyOperation operation) {
        ItemTransition transition = items(operation.namespace()).update(operation.key(),
                current -> ItemTransition.apply(operation, current, clock.millis(), newCas, maxItemSize));
        return transition.effect() == ItemTransition.Effect.NONE
                ? CompletableFuture.completedFuture(transition.result())
                : durable(transition.result());
    }

    private CompletionStage<Result> durable(Result result) {
        return groupCommit == null ? CompletableFuture.completedFuture(result) : groupCommit.afterCommit(result);
    }

    private void commit(boolean fsync) {
        failingTheStore(() -> {
            saveCasMark();
            store.commit();
            if (fsync) {
                store.sync();
            }
        });
    }

    /** Runs a write or force of the store file; one that fails fails the store ({@link #failure}) and throws on. */
    private void failingTheStore(Runnable work) {
        try {
            work.run();
        } catch (RuntimeException | Error e) {
            failure.compareAndSet(null, e);
            throw e;
        }
    }

    /** Removes expired items, re-checking each under its key's lock so a fresh write of the key is never lost. */
    void purgeExpired() {
        long now = clock.millis();
        PurgePace pace = new PurgePace(() -> closing);
        for (Items items : allItems()) {
            items.removeExpired(now, pace);
        }
        if (!inMemory && !closing) {
            saveCasMark();
        }
    }

    @Override
    public Map<String, String> stats() {
        long items = 0;
        for (Items namespace : allItems()) {
            items += namespace.size();
        }
        Map<String, String> stats = new LinkedHashMap<>();
        stats.put("curr_items", Long.toString(items));
        if (budget != null) {
            // memcached's names: bytes held, the limit, and the items removed to stay under it.
            stats.put("bytes", Long.toString(budget.used()));
            stats.put("limit_maxbytes", Long.toString(budget.limit()));
            stats.put("evictions", Long.toString(budget.evictions()));
            stats.put("reclaimed", Long.toString(budget.reclaimed()));
        }
        return stats;
    }

    @Override
    public void close() throws Exception {
        // Never interrupt a thread that may be reading the store: an interrupt closes MVStore's FileChannel for
        // good, and the final commit would then fail. The purge sees the flag and stops at the next item.
        closing = true;
        housekeeping.shutdown();
        if (!housekeeping.awaitTermination(60, TimeUnit.SECONDS)) {
            throw new IllegalStateException("the purge did not stop within 60 s; the store was left open");
        }
        if (groupCommit != null) {
            groupCommit.close();
        }
        if (!inMemory) {
            saveCasMark();
            store.close();
        }
    }

    /** A namespace's items, the namespace created if it has none yet: for writes. */
    private Items items(Namespace namespace) {
        Items items = existingItems(namespace);
        return items != null ? items : remembered(namespace, namespaces.computeIfAbsent(namespace, this::openItems));
    }

    /**
     * A namespace's items if it exists, in memory or as a map of the file; else null. Reads, scans and flushes look
     * through this and create nothing: a client reading names at random (MPDB's collections and node buckets come
     * from unauthenticated datagrams) must not grow the store by a namespace a name.
     */
    private Items existingItems(Namespace namespace) {
        NamespaceItems seen = lastNamespace;
        if (seen != null && seen.namespace().equals(namespace)) {
            return seen.items();
        }
        // Looked up first without computeIfAbsent, whose capturing lambda every request would otherwise allocate.
        Items items = namespaces.get(namespace);
        if (items == null && !inMemory && store.hasMap(NAMESPACE_PREFIX + namespace.name())) {
            items = namespaces.computeIfAbsent(namespace, this::openItems); // in the file since before start-up
        }
        return items == null ? null : remembered(namespace, items);
    }

    /** Notes {@code items} as the namespace looked up last ({@link #lastNamespace}), and returns them. */
    private Items remembered(Namespace namespace, Items items) {
        lastNamespace = new NamespaceItems(namespace, items);
        return items;
    }

    /** A namespace and its items, as {@link #lastNamespace} holds them. */
    private record NamespaceItems(Namespace namespace, Items items) {
    }

    private Items openItems(Namespace namespace) {
        if (inMemory) {
            // The gateway's own records are not evicted: a tag's key list gone would drop every key it lists.
            return new MemoryItems(hashSeed, budget, !namespace.isGatewaysOwn());
        }
        return new FileItems(store.openMap(NAMESPACE_PREFIX + namespace.name(),
                new MVMap.Builder<byte[], byte[]>().keyType(KeyType.INSTANCE).valueType(ItemType.INSTANCE)), stripes);
    }

    /** Every namespace in the store, including, in the file, those no request has touched since start-up. */
    private Collection<Items> allItems() {
        if (inMemory) {
            return namespaces.values();
        }
        List<Items> all = new ArrayList<>();
        for (String name : store.getMapNames()) {
            if (name.startsWith(NAMESPACE_PREFIX)) {
                all.add(items(new Namespace(name.substring(NAMESPACE_PREFIX.length()))));
            }
        }
        return all;
    }
}
