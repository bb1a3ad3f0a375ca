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
import kvgate.spi.Operation;
import kvgate.spi.Result;
import kvgate.spi.Status;

/**
 * The default counter store: counters in memory, as the reference server keeps them (not persisted), private to
 * this gateway process. A counter's state changes only inside {@link ConcurrentHashMap#compute}, so concurrent
 * acquisitions from many connections can never over-grant, and the garbage collector can never drop a counter an
 * acquisition is about to use.
 *
 * <p>Statistics interval: intervals are multiples of {@code counter.stats_interval} seconds since the epoch. The
 * first change in a new interval restarts the interval maximum (from the consumption after an acquisition, before a
 * release); a counter not changed in the current interval reports its current consumption as the maximum. Once per
 * interval, counters at 0 not changed in it are dropped.
 */
public final class MemoryCounterStore implements Backend {

    private static final class Counter {
        volatile long consumption;
        volatile long max;
        /** Epoch seconds of the last change. */
        volatile long lastUpdated;
    }

    private static final int ESTIMATED_COUNTER_BYTES = 96;

    private final ConcurrentHashMap<String, Counter> counters;
    /** owner -> counter name -> resources held. An owner's map is used by one connection at a time. */
    private final ConcurrentHashMap<String, Map<String, Long>> ledgers = new ConcurrentHashMap<>();
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
                Map<String, Long> held = ledgers.remove(releaseAll.owner());
                if (held != null) {
                    held.forEach((name, amount) -> {
                        if (amount > 0) {
                            lower(name, amount);
                        }
                    });
                }
                return Result.DONE;
            }

            @Override
            public Result readCounter(Operation.ReadCounter read) {
                Counter counter = counters.get(keyOf(read.name()));
                return counter == null ? Result.failure(Status.NOT_FOUND)
                        : new Result.Number(counter.consumption, 0);
            }

            @Override
            public Result dumpCounters(Operation.DumpCounters dump) {
                long now = seconds();
                List<Result.CounterState> states = new ArrayList<>(counters.size());
                counters.forEach((name, counter) -> states.add(new Result.CounterState(
                        name.getBytes(StandardCharsets.ISO_8859_1), counter.consumption,
                        counter.lastUpdated < boundary(now) ? counter.consumption : counter.max)));
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
            if (counter == null) {
                Counter created = new Counter();
                created.consumption = acquire.resources();
                created.max = acquire.resources();
                created.lastUpdated = now;
                totalObjects.incrementAndGet();
                granted[0] = true;
                return created;
            }
            long after = counter.consumption + acquire.resources(); // 64-bit: amounts are at most 2^32-1
            if (after > acquire.maximum()) {
                return counter;
            }
            counter.max = counter.lastUpdated < boundary(now) ? after : Math.max(counter.max, after);
            counter.lastUpdated = now;
            counter.consumption = after;
            granted[0] = true;
            return counter;
        });
        if (!granted[0]) {
            return Result.failure(Status.LIMIT_REACHED);
        }
        ledgers.computeIfAbsent(acquire.owner(), owner -> new ConcurrentHashMap<>())
                .merge(name, acquire.resources(), Long::sum);
        return new Result.Number(acquire.resources(), 0);
    }

    private Result release(Operation.Release release) {
        String name = keyOf(release.name());
        if (!counters.containsKey(name)) {
            return Result.failure(Status.NOT_FOUND);
        }
        Map<String, Long> held = ledgers.get(release.owner());
        Long amount = held == null ? null : held.get(name);
        if (amount == null || amount < release.resources()) {
            return Result.failure(Status.NOT_HELD);
        }
        if (!lower(name, release.resources())) {
            return Result.failure(Status.NOT_FOUND);
        }
        if (amount == release.resources()) {
            // Holding none: forgotten, as the reference server erases the entry (a release of 0 is then "not
            // acquired"), and a long-lived connection's ledger does not keep every name it ever used.
            held.remove(name);
        } else {
            held.put(name, amount - release.resources());
        }
        return Result.DONE;
    }

    /** Lowers a counter's consumption; false when the counter is gone. */
    private boolean lower(String name, long resources) {
        long now = seconds();
        return counters.computeIfPresent(name, (key, counter) -> {
            if (counter.lastUpdated < boundary(now)) {
                counter.max = counter.consumption;
            }
            counter.lastUpdated = now;
            counter.consumption = Math.max(0, counter.consumption - resources);
            return counter;
        }) != null;
    }

    /** Drops counters at 0 not changed in the current interval, once per interval. */
    void collectGarbageIfDue() {
        long boundary = boundary(seconds());
        if (boundary > lastGcBoundary) {
            lastGcBoundary = boundary;
            collectGarbage(boundary);
        }
    }

    private void collectGarbage(long boundary) {
        long started = System.nanoTime();
        for (String name : counters.keySet()) {
            counters.computeIfPresent(name, (key, counter) ->
                    counter.consumption == 0 && counter.lastUpdated < boundary ? null : counter);
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

    private long boundary(long epochSeconds) {
        return Math.floorDiv(epochSeconds, intervalSeconds) * intervalSeconds;
    }

    private static String keyOf(byte[] name) {
        return new String(name, StandardCharsets.ISO_8859_1);
    }
}
