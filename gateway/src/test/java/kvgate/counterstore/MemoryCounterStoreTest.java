package kvgate.counterstore;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import kvgate.counter.CounterTranslator;
import kvgate.spi.Operation;
import kvgate.spi.Result;
import kvgate.spi.Status;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The interval maximum and garbage collection rules, with a clock the test moves. */
class MemoryCounterStoreTest {
    private static final long INTERVAL = 3600;

    /** A clock standing where the test puts it. */
    static final class MovableClock extends Clock {
        volatile long millis;

        MovableClock(long millis) {
            this.millis = millis;
        }

        @Override
        public long millis() {
            return millis;
        }

        @Override
        public Instant instant() {
            return Instant.ofEpochMilli(millis);
        }

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }
    }

    // 10 minutes into an interval, so a few seconds' moves stay inside it.
    private final MovableClock clock = new MovableClock((INTERVAL * 1000 * 100) + 600_000);
    private final MemoryCounterStore store = new MemoryCounterStore(clock, INTERVAL, 1000);

    @AfterEach
    void close() throws Exception {
        store.close();
    }

    private Result run(Operation operation) throws Exception {
        return store.execute(operation).toCompletableFuture().get(5, TimeUnit.SECONDS);
    }

    private Result acquire(String name, long resources, String owner) throws Exception {
        return run(new Operation.Acquire(CounterTranslator.NAMESPACE, bytes(name), resources, 1000, owner));
    }

    private Result release(String name, long resources, String owner) throws Exception {
        return run(new Operation.Release(CounterTranslator.NAMESPACE, bytes(name), resources, owner));
    }

    private Map<String, long[]> dump() throws Exception {
        Result.Counters counters = (Result.Counters) run(new Operation.DumpCounters(CounterTranslator.NAMESPACE, "x"));
        Map<String, long[]> byName = new HashMap<>();
        for (Result.CounterState state : counters.counters()) {
            byName.put(new String(state.name(), StandardCharsets.UTF_8),
                    new long[] {state.consumption(), state.maxInInterval()});
        }
        return byName;
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void theMaximumFollowsChangesWithinAnInterval() throws Exception {
        acquire("c", 5, "o");
        acquire("c", 3, "o");
        release("c", 1, "o");
        assertEquals(7, dump().get("c")[0]);
        assertEquals(8, dump().get("c")[1]);
    }

    @Test
    void aNewIntervalRestartsTheMaximumFromTheFirstChange() throws Exception {
        acquire("c", 8, "o");
        release("c", 1, "o");
        clock.millis += INTERVAL * 1000;
        assertEquals(7, dump().get("c")[1], "no change yet in this interval: the current consumption");
        release("c", 2, "o");
        assertEquals(7, dump().get("c")[1], "a first release starts from the consumption before it");
        acquire("c", 1, "o");
        assertEquals(7, dump().get("c")[1]);
        clock.millis += INTERVAL * 1000;
        acquire("c", 4, "o");
        assertEquals(10, dump().get("c")[1], "a first acquisition starts from the consumption after it");
    }

    @Test
    void garbageCollectionDropsIdleEmptyCountersOncePerInterval() throws Exception {
        acquire("idle", 2, "o");
        release("idle", 2, "o");
        acquire("busy", 1, "o");
        store.collectGarbageIfDue(); // first run: nothing is from an earlier interval yet
        assertTrue(dump().containsKey("idle"));
        clock.millis += INTERVAL * 1000;
        store.collectGarbageIfDue();
        assertTrue(!dump().containsKey("idle"), "at 0 and unchanged in the new interval");
        assertTrue(dump().containsKey("busy"), "still held");
        assertEquals(Status.NOT_FOUND, run(new Operation.ReadCounter(CounterTranslator.NAMESPACE, bytes("idle"), "o"))
                .status());
        Map<String, String> stats = store.stats();
        assertEquals("2", stats.get("gc_count"));
        assertEquals("1", stats.get("objects"));
        assertEquals("2", stats.get("total_objects"));
    }

    @Test
    void releaseAllGivesBackOnlyTheOwnersHoldings() throws Exception {
        acquire("shared", 3, "a");
        acquire("shared", 4, "b");
        assertEquals(Status.OK, run(new Operation.ReleaseAll(CounterTranslator.NAMESPACE, "a")).status());
        assertEquals(4, dump().get("shared")[0]);
        assertEquals(Status.NOT_HELD, release("shared", 1, "a").status(), "a holds nothing any more");
        assertEquals(Status.OK, release("shared", 4, "b").status());
    }

    @Test
    void keyValueOperationsAreRefused() throws Exception {
        Result result = run(new Operation.Get(CounterTranslator.NAMESPACE, bytes("k")));
        assertEquals(Status.UNSUPPORTED, result.status());
    }
}
