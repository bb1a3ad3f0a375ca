package kvgate.counterstore;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.ArrayList;
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
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import kvgate.spi.Backend;
import kvgate.spi.Capability;
import kvgate.spi.Counter;
import kvgate.spi.CounterLedger;
import kvgate.spi.Operation;
import kvgate.spi.Result;
import kvgate.spi.Status;

/**
 * The default counter store: counters in memory, as the reference server keeps them (not persisted), private to
 * this gateway process. A counter changes only inside {@link ConcurrentHashMap#compute}, by the SPI's
 * {@link Counter} rules, so concurrent acquisitions from many connections can never over-grant, and the garbage
 * collector can never drop a counter an acquisition is about to use. Once per statistics interval, the counters
 * {@linkplain Counter#idle idle} in it are dropped.
 */
public final class MemoryCounterStore implements Backend {

    private static final int ESTIMATED_COUNTER_BYTES = 96;

    private final ConcurrentHashMap<String, Counter> counters;
    private final CounterLedger<String> ledger = new CounterLedger<>();
    private final Clock clock;
    private final long intervalSeconds;
    private final AtomicLong totalObjects = new AtomicLong();
    private final AtomicLong gcCount = new AtomicLong();
    private final AtomicLong lastGcMicros = new AtomicLong();
    private final AtomicLong totalGcMicros = new AtomicLong();
    private volatile long lastGcBoundary = Long.MIN_VALUE;
    private final ScheduledExecutorService gcTimer;

    /**
     * @param intervalSeconds the statistics interval
     * @param buckets the expected number of counters (the reference's hash table size)
     */
    public MemoryCounterStore(Clock clock, long intervalSeconds, int buckets) {
        this.clock = clock;
        this.intervalSeconds = intervalSeconds;
        this.counters = new ConcurrentHashMap<>(Math.min(buckets, 1 << 22));
        this.gcTimer = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "kvgate-counter-gc");
            thread.setDaemon(true);
            return thread;
        });
        gcTimer.scheduleWithFixedDelay(this::collectGarbageIfDue, 1, 1, TimeUnit.SECONDS);
    }

    @Override
    public Set<Capability> capabilities() {
        return EnumSet.of(Capability.COUNTERS);
    }

    @Override
    public CompletionStage<Result> execute(Operation operation) {
        return CompletableFuture.completedFuture(operation.accept(new Operation.Visitor<Result>() {
            @Override
            public Result acquire(Operation.Acquire acquire) {
                return MemoryCounterStore.this.acquire(acquire);
            }

            @Override
            public Result release(Operation.Release release) {
                return MemoryCounterStore.this.release(release);
            }

            @Override
            public Result releaseAll(Operation.ReleaseAll releaseAll) {
                ledger.releaseAll(releaseAll.owner()).forEach((name, amount) -> {
                    if (amount > 0) {
                        lower(name, amount);
                    }
                });
                return Result.DONE;
            }

            @Override
            public Result readCounter(Operation.ReadCounter read) {
                Counter counter = counters.get(keyOf(read.name()));
                return counter == null ? Result.failure(Status.NOT_FOUND)
                        : new Result.Number(counter.consumption(), 0);
            }

            @Override
            public Result dumpCounters(Operation.DumpCounters dump) {
                long now = seconds();
                List<Result.CounterState> states = new ArrayList<>(counters.size());
                counters.forEach((name, counter) -> states.add(new Result.CounterState(
                        name.getBytes(StandardCharsets.ISO_8859_1), counter.consumption(),
                        counter.reportedMax(now, intervalSeconds))));
                return new Result.Counters(states);
            }

            @Override
            public Result get(Operation.Get get) {
                return notCounters();
            }

            @Override
            public Result store(Operation.Store store) {
                return notCounters();
            }

            @Override
            public Result delete(Operation.Delete delete) {
                return notCounters();
            }

            @Override
            public Result arithmetic(Operation.Arithmetic arithmetic) {
                return notCounters();
            }

            @Override
            public Result touch(Operation.Touch touch) {
                return notCounters();
            }

            @Override
            public Result flush(Operation.Flush flush) {
                return notCounters();
            }
        }));
    }

    private static Result notCounters() {
        return Result.failure(Status.UNSUPPORTED, "the counter store keeps counters only");
    }

    private Result acquire(Operation.Acquire acquire) {
        String name = keyOf(acquire.name());
        long now = seconds();
        boolean[] granted = {false};
        counters.compute(name, (key, counter) -> {
            Counter next = Counter.acquired(counter, acquire.resources(), acquire.maximum(), now, intervalSeconds);
            if (next == null) {
                return counter;
            }
            if (counter == null) {
                totalObjects.incrementAndGet();
            }
            granted[0] = true;
            return next;
        });
        if (!granted[0]) {
            return Result.failure(Status.LIMIT_REACHED);
        }
        ledger.acquired(acquire.owner(), name, acquire.resources());
        return new Result.Number(acquire.resources(), 0);
    }

    private Result release(Operation.Release release) {
        String name = keyOf(release.name());
        if (!counters.containsKey(name)) {
            return Result.failure(Status.NOT_FOUND);
        }
        if (!ledger.holds(release.owner(), name, release.resources())) {
            return Result.failure(Status.NOT_HELD);
        }
        if (!lower(name, release.resources())) {
            return Result.failure(Status.NOT_FOUND);
        }
        ledger.released(release.owner(), name, release.resources());
        return Result.DONE;
    }

    /** Lowers a counter's consumption; false when the counter is gone. */
    private boolean lower(String name, long resources) {
        long now = seconds();
        return counters.computeIfPresent(name, (key, counter) -> counter.released(resources, now, intervalSeconds))
                != null;
    }

    /** Drops counters at 0 not changed in the current interval, once per interval. */
    void collectGarbageIfDue() {
        long now = seconds();
        long boundary = Counter.intervalStart(now, intervalSeconds);
        if (boundary > lastGcBoundary) {
            lastGcBoundary = boundary;
            collectGarbage(now);
        }
    }

    private void collectGarbage(long now) {
        long started = System.nanoTime();
        for (String name : counters.keySet()) {
            counters.computeIfPresent(name, (key, counter) -> counter.idle(now, intervalSeconds) ? null : counter);
        }
        long micros = (System.nanoTime() - started) / 1000;
        lastGcMicros.set(micros);
        totalGcMicros.addAndGet(micros);
        gcCount.incrementAndGet();
    }

    /** The reference server's counter statistics, in its order. */
    @Override
    public Map<String, String> stats() {
        Map<String, String> stats = new LinkedHashMap<>();
        long usedMemory = 0;
        for (String name : counters.keySet()) {
            usedMemory += ESTIMATED_COUNTER_BYTES + name.length();
        }
        stats.put("objects", Long.toString(counters.size()));
        stats.put("total_objects", Long.toString(totalObjects.get()));
        stats.put("used_memory", Long.toString(usedMemory));
        // The reference counts hash buckets holding several counters; a ConcurrentHashMap resolves those itself.
        stats.put("conflicts", "0");
        stats.put("gc_count", Long.toString(gcCount.get()));
        stats.put("last_gc_elapsed", Long.toString(lastGcMicros.get()));
        stats.put("total_gc_elapsed", Long.toString(totalGcMicros.get()));
        return stats;
    }

    @Override
    public void close() throws InterruptedException {
        gcTimer.shutdown();
        gcTimer.awaitTermination(10, TimeUnit.SECONDS);
    }

    private long seconds() {
        return clock.millis() / 1000;
    }


    private static String keyOf(byte[] name) {
        return new String(name, StandardCharsets.ISO_8859_1);
    }
}
