package org.example.kvgate;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
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

/**
 * An in-memory store: one {@link ConcurrentHashMap} of items per namespace, plus the counter protocol's counters
 * ({@link CounterTable}). Nothing is persisted; each gateway process has a store of its own.
 *
 * <p>The store knows no protocol. Every key operation is handed to {@link ItemTransition#apply}, which says what to
 * write and what to answer with memcached's rules (CAS checks, add and replace, append, unsigned arithmetic,
 * expiry); all the store must give it is an atomic read-modify-write of one key, here
 * {@link ConcurrentHashMap#compute}. Replace the maps with your own store and keep that one rule.
 *
 * <p>All the work is in memory and takes microseconds, so {@link #execute} completes before it returns, on the
 * gateway's network thread that called it. A store that waits (on a disk, a lock held long, the network) must
 * instead return a stage completed later by threads of its own: network threads must never block.
 */
final class ExampleStore implements Backend {
    static final String MAX_ITEMS = "max_items";
    static final String PURGE_INTERVAL_MS = "purge_interval_ms";

    private final Map<Namespace, ConcurrentHashMap<String, Item>> namespaces = new ConcurrentHashMap<>();
    private final CounterTable counters;
    /** Items held, expired ones included until the purge removes them; what {@link #MAX_ITEMS} limits. */
    private final AtomicLong itemCount = new AtomicLong();
    /** CAS values: unique per mutation and never 0. Starting at 1 each time is fine: the data does not survive. */
    private final AtomicLong lastCas = new AtomicLong();
    private final Clock clock;
    private final int maxItemSize;
    private final long maxItems;
    private final ScheduledExecutorService purge;
    private final Operation.Visitor<Result> operations = new Operations();

    ExampleStore(BackendContext context) {
        Settings settings = context.settings();
        this.clock = context.clock();
        this.maxItemSize = context.maxItemSize();
        this.maxItems = settings.integer(MAX_ITEMS);
        // The gateway's counter rules come to every backend, for stores that keep counters.
        this.counters = new CounterTable(clock, context.counterRules().statsIntervalSeconds());
        this.purge = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "example-" + context.name() + "-purge");
            thread.setDaemon(true);
            return thread;
        });
        long every = settings.integer(PURGE_INTERVAL_MS);
        purge.scheduleWithFixedDelay(this::purgeExpired, every, every, TimeUnit.MILLISECONDS);
    }

    /**
     * What this store does itself. SCAN: it lists a namespace from its map (MPDB's GETBUCKET). COUNTERS: it keeps
     * the counter protocol's counters ({@code counter.store = example}). Tags and full-text search are left to the
     * gateway, which builds them from gets and stores; DURABLE and SHARED would be false promises here.
     */
    @Override
    public Set<Capability> capabilities() {
        return EnumSet.of(Capability.SCAN, Capability.COUNTERS, Capability.KEEP_EXPIRY, Capability.ARITHMETIC_EXPIRY,
                Capability.CHOSEN_CAS);
    }

    @Override
    public CompletionStage<Result> execute(Operation operation) {
        return CompletableFuture.completedFuture(operation.accept(operations));
    }

    /** One method per operation; those for tags and search keep the interface's defaults: never called here. */
    private final class Operations implements Operation.Visitor<Result> {
        @Override
        public Result get(Operation.Get get) {
            // A read needs no atomic section: the map hands out whole items, never half-written ones.
            Item current = itemsOf(get.namespace()).get(keyOf(get.key()));
            return ItemTransition.apply(get, current, clock.millis(), lastCas::incrementAndGet, maxItemSize).result();
        }

        @Override
        public Result store(Operation.Store store) {
            return change(store);
        }

        @Override
        public Result delete(Operation.Delete delete) {
            return change(delete);
        }

        @Override
        public Result arithmetic(Operation.Arithmetic arithmetic) {
            return change(arithmetic);
        }

        @Override
        public Result touch(Operation.Touch touch) {
            return change(touch);
        }

        @Override
        public Result flush(Operation.Flush flush) {
            ConcurrentHashMap<String, Item> items = namespaces.get(flush.namespace());
            if (items != null) {
                for (String key : items.keySet()) {
                    if (items.remove(key) != null) {
                        itemCount.decrementAndGet();
                    }
                }
            }
            return Result.DONE;
        }

        @Override
        public Result scan(Operation.Scan scan) {
            // Not itemsOf: looking at a namespace must not create it.
            ConcurrentHashMap<String, Item> items = namespaces.get(scan.namespace());
            List<Result.Entry> entries = new ArrayList<>();
            if (items == null) {
                return new Result.Entries(entries);
            }
            long now = clock.millis();
            for (Map.Entry<String, Item> entry : items.entrySet()) {
                if (entry.getValue().isExpiredAt(now)) {
                    continue;
                }
                if (entries.size() == scan.limit()) {
                    return Result.failure(Status.TOO_LARGE, "more than " + scan.limit() + " items");
                }
                entries.add(new Result.Entry(bytesOf(entry.getKey()), entry.getValue()));
            }
            return new Result.Entries(entries);
        }

        @Override
        public Result acquire(Operation.Acquire acquire) {
            return counters.acquire(acquire);
        }

        @Override
        public Result release(Operation.Release release) {
            return counters.release(release);
        }

        @Override
        public Result releaseAll(Operation.ReleaseAll releaseAll) {
            return counters.releaseAll(releaseAll);
        }

        @Override
        public Result readCounter(Operation.ReadCounter read) {
            return counters.read(read);
        }

        @Override
        public Result dumpCounters(Operation.DumpCounters dump) {
            return counters.dump(dump);
        }
    }

    /** Runs a key operation that may write, inside the map's atomic section for that key. */
    private Result change(Operation.KeyOperation operation) {
        Result[] outcome = new Result[1];
        itemsOf(operation.namespace()).compute(keyOf(operation.key()), (key, current) -> {
            ItemTransition transition = ItemTransition.apply(operation, current, clock.millis(),
                    lastCas::incrementAndGet, maxItemSize);
            outcome[0] = transition.result();
            return switch (transition.effect()) {
                case NONE -> current;
                case REMOVE -> {
                    if (current != null) {
                        itemCount.decrementAndGet();
                    }
                    yield null;
                }
                case PUT -> {
                    if (current == null && !takeRoom()) {
                        outcome[0] = Result.failure(Status.TEMPORARY_FAILURE,
                                "the example store is full (example.max_items = " + maxItems + ")");
                        yield null;
                    }
                    yield transition.next();
                }
            };
        });
        return outcome[0];
    }

    /** Counts one more item if {@link #MAX_ITEMS} allows it. */
    private boolean takeRoom() {
        while (true) {
            long held = itemCount.get();
            if (maxItems != 0 && held >= maxItems) {
                return false;
            }
            if (itemCount.compareAndSet(held, held + 1)) {
                return true;
            }
        }
    }

    /**
     * Removes expired items (reads already treat them as missing; this frees their memory), and counters idle at 0.
     * Each item is checked again inside the atomic section, so a store of the key since the loop saw it is kept.
     */
    private void purgeExpired() {
        try {
            long now = clock.millis();
            for (ConcurrentHashMap<String, Item> items : namespaces.values()) {
                for (String key : items.keySet()) {
                    items.computeIfPresent(key, (k, item) -> {
                        if (!item.isExpiredAt(now)) {
                            return item;
                        }
                        itemCount.decrementAndGet();
                        return null;
                    });
                }
            }
            counters.removeIdle();
        } catch (RuntimeException e) {
            // An exception would end the schedule for good; the next round tries again.
            System.getLogger(ExampleStore.class.getName()).log(System.Logger.Level.WARNING, "purge failed", e);
        }
    }

    /**
     * Figures the gateway adds to its own stats: memcached's {@code curr_items}, the counter protocol's
     * {@code objects}, and this store's limit. Cheap, never blocking.
     */
    @Override
    public Map<String, String> stats() {
        return Map.of("curr_items", Long.toString(itemCount.get()),
                "objects", Integer.toString(counters.size()),
                "example_max_items", Long.toString(maxItems));
    }

    @Override
    public void close() throws InterruptedException {
        purge.shutdownNow();
        purge.awaitTermination(10, TimeUnit.SECONDS);
    }

    private ConcurrentHashMap<String, Item> itemsOf(Namespace namespace) {
        return namespaces.computeIfAbsent(namespace, created -> new ConcurrentHashMap<>());
    }

    /**
     * Keys are any bytes. Read as ISO-8859-1, every byte becomes one char and back unchanged, so a String is a
     * map key with the equality and hash a byte array lacks.
     */
    static String keyOf(byte[] key) {
        return new String(key, StandardCharsets.ISO_8859_1);
    }

    static byte[] bytesOf(String key) {
        return key.getBytes(StandardCharsets.ISO_8859_1);
    }
}
