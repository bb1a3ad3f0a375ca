package kvgate.backend.local;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import kvgate.spi.Backend;
import kvgate.spi.BackendContext;
import kvgate.spi.Capability;
import kvgate.spi.Item;
import kvgate.spi.Lease;
import kvgate.spi.Namespace;
import kvgate.spi.Operation;
import kvgate.spi.Result;
import kvgate.spi.Setting;
import kvgate.spi.Settings;
import kvgate.spi.Status;
import kvgate.spi.StoreMode;
import org.h2.mvstore.MVMap;
import org.h2.mvstore.MVStore;
import org.h2.mvstore.type.StringDataType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

class LocalStoreTest {

    private static final Namespace NS = Namespace.DEFAULT;
    private static final Namespace OTHER = new Namespace("bucket.collection");
    private static final int MAX_ITEM_SIZE = 1 << 20;
    /** A fixed start time: with a frozen clock the CAS floor never rises, so only the stored high-water mark can. */
    private static final long START = 1_700_000_000_000L;

    /** A clock the test moves by hand, so expiry needs no sleeping and the CAS floor stays put. */
    static class MutableClock extends Clock {
        private final AtomicLong millis;

        MutableClock(long start) {
            this.millis = new AtomicLong(start);
        }

        void advance(long delta) {
            millis.addAndGet(delta);
        }

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return Instant.ofEpochMilli(millis.get());
        }

        @Override
        public long millis() {
            return millis.get();
        }
    }

    /**
     * A clock that holds the first background caller (the purge) until it is interrupted, so a test can make
     * close() arrive while a purge round is under way instead of hoping for that timing.
     */
    static final class PurgeHoldingClock extends Clock {
        private final long millis;
        private final Thread owner = Thread.currentThread();
        final CountDownLatch purgeHeld = new CountDownLatch(1);
        private volatile boolean armed;

        PurgeHoldingClock(long millis) {
            this.millis = millis;
        }

        void arm() {
            armed = true;
        }

        @Override
        public long millis() {
            if (armed && Thread.currentThread() != owner) {
                armed = false;
                purgeHeld.countDown();
                try {
                    // Long enough for close() to arrive mid-round; a close that interrupts ends it early.
                    Thread.sleep(500);
                } catch (InterruptedException e) {
                    // Hand the interrupt on, exactly as if it had arrived anywhere else in the round.
                    Thread.currentThread().interrupt();
                }
            }
            return millis;
        }

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return Instant.ofEpochMilli(millis());
        }
    }

    @TempDir
    Path dir;

    private final MutableClock clock = new MutableClock(START);
    private final List<Backend> open = new ArrayList<>();

    @AfterEach
    void closeOpenBackends() throws Exception {
        for (Backend backend : open) {
            backend.close();
        }
    }

    // --- helpers ---

    private Backend open(Map<String, String> overrides) throws Exception {
        return open(overrides, clock);
    }

    private Backend open(Map<String, String> overrides, Clock clock) throws Exception {
        LocalBackendFactory factory = new LocalBackendFactory();
        Map<String, String> values = new HashMap<>();
        Map<String, Setting> declared = new HashMap<>();
        for (Setting setting : factory.settings()) {
            values.put(setting.key(), setting.defaultValue());
            declared.put(setting.key(), setting);
        }
        overrides.forEach((key, value) -> {
            Setting setting = declared.get(key);
            assertNotNull(setting, "test uses an undeclared setting: " + key);
            assertEquals(Optional.empty(), setting.problem(value), "test uses an invalid value for " + key);
            values.put(key, value);
        });
        Backend backend = factory.open(new BackendContext("local", new Settings(values), clock, MAX_ITEM_SIZE, null));
        open.add(backend);
        return backend;
    }

    /** Where the store keeps its items: the behaviours that do not depend on durability hold in both. */
    enum Mode {
        FILE, MEMORY;

        String path(Path dir) {
            return this == FILE ? dir.toString() : LocalBackendFactory.IN_MEMORY;
        }
    }

    /** A file store on {@link FailingFilePath}'s file system, whose forces fail while told to. */
    private Backend openFailing(Map<String, String> overrides) throws Exception {
        Map<String, String> values = new HashMap<>();
        for (Setting setting : new LocalBackendFactory().settings()) {
            values.put(setting.key(), setting.defaultValue());
        }
        values.putAll(overrides);
        Backend backend = LocalStore.open(new BackendContext("local", new Settings(values), clock, MAX_ITEM_SIZE,
                null), FailingFilePath.prefix());
        open.add(backend);
        return backend;
    }

    private Backend open(Mode mode) throws Exception {
        return open(Map.of("path", mode.path(dir)));
    }

    private Backend openFile(String commitIntervalMs) throws Exception {
        return open(Map.of("path", dir.toString(), "commit_interval_ms", commitIntervalMs));
    }

    private Backend openMemory() throws Exception {
        return open(Map.of("path", LocalBackendFactory.IN_MEMORY));
    }

    private void close(Backend backend) throws Exception {
        open.remove(backend);
        backend.close();
    }

    private static Result run(Backend backend, Operation op) throws Exception {
        return backend.execute(op).toCompletableFuture().get(5, SECONDS);
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.ISO_8859_1);
    }

    private static String text(byte[] value) {
        return new String(value, StandardCharsets.ISO_8859_1);
    }

    private static long set(Backend backend, Namespace ns, String key, String value, int flags, long expiresAt)
            throws Exception {
        Result result = run(backend, new Operation.Store(ns, bytes(key), StoreMode.SET, bytes(value), flags,
                expiresAt, 0));
        return assertInstanceOf(Result.Stored.class, result).cas();
    }

    private static long set(Backend backend, String key, String value) throws Exception {
        return set(backend, NS, key, value, 0, Item.NEVER);
    }

    /** Stores {@code count} items that never expire, keys {@code prefix0}, {@code prefix1}, ... */
    private static void fill(Backend backend, Namespace ns, String prefix, int count) throws Exception {
        for (int i = 0; i < count; i++) {
            set(backend, ns, prefix + i, "x", 0, Item.NEVER);
        }
    }

    private static Result get(Backend backend, Namespace ns, String key) throws Exception {
        return run(backend, new Operation.Get(ns, bytes(key)));
    }

    private static Item item(Backend backend, Namespace ns, String key) throws Exception {
        return assertInstanceOf(Result.Value.class, get(backend, ns, key)).item();
    }

    private static String value(Backend backend, Namespace ns, String key) throws Exception {
        return text(item(backend, ns, key).value());
    }

    private static Operation.Arithmetic increment(String key, long delta) {
        return new Operation.Arithmetic(NS, bytes(key), true, delta, 0, true, Item.NEVER, 0);
    }

    private static long currItems(Backend backend) {
        return Long.parseLong(backend.stats().get("curr_items"));
    }

    private static void await(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + SECONDS.toNanos(5);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not within 5 s: " + what);
            }
            Thread.sleep(20);
        }
    }

    private static <T> List<T> runConcurrently(int threads, Callable<T> task) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<T>> futures = new ArrayList<>();
            for (int i = 0; i < threads; i++) {
                futures.add(pool.submit(() -> {
                    start.await();
                    return task.call();
                }));
            }
            start.countDown();
            List<T> results = new ArrayList<>();
            for (Future<T> future : futures) {
                results.add(future.get(30, SECONDS));
            }
            return results;
        } finally {
            pool.shutdownNow();
        }
    }

    // --- basic behaviour ---

    @ParameterizedTest
    @EnumSource(Mode.class)
    void setThenGetReturnsValueFlagsExpiryAndCas(Mode mode) throws Exception {
        Backend backend = open(mode);
        long expiresAt = START + 60_000;
        long cas = set(backend, NS, "greeting", "hello", 0xCAFEBABE, expiresAt);

        Item item = item(backend, NS, "greeting");
        assertEquals("hello", text(item.value()));
        assertEquals(0xCAFEBABE, item.flags());
        assertEquals(expiresAt, item.expiresAt());
        assertEquals(cas, item.cas());
        assertTrue(cas != 0);
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void leasesAreHandedOutOnceAndKeptWithTheItem(Mode mode) throws Exception {
        Backend backend = open(mode);
        Operation.LeaseGet plain = new Operation.LeaseGet(NS, bytes("hot"), null, null, null);
        assertEquals(Status.NOT_FOUND, run(backend, plain).status());
        Operation.LeaseGet vivify = new Operation.LeaseGet(NS, bytes("hot"), null, START + 30_000, null);
        Result.Leased created = assertInstanceOf(Result.Leased.class, run(backend, vivify));
        assertTrue(created.won());
        assertEquals(0, created.item().value().length, "an empty placeholder");
        assertEquals(0, created.item().flags());
        assertEquals(START + 30_000, created.item().expiresAt());
        assertEquals(Lease.WON, created.item().lease());
        Result.Leased again = assertInstanceOf(Result.Leased.class, run(backend, vivify));
        assertFalse(again.won(), "one winner");
        assertEquals(Lease.WON, again.item().lease());

        long cas = set(backend, "hot", "fresh");
        assertEquals(Lease.NONE, item(backend, NS, "hot").lease(), "a write makes the item fresh");
        Result invalidated = run(backend, new Operation.Invalidate(NS, bytes("hot"), cas, null));
        long staleCas = assertInstanceOf(Result.Stored.class, invalidated).cas();
        assertTrue(staleCas != cas);
        assertEquals(Status.EXISTS, run(backend, new Operation.Invalidate(NS, bytes("hot"), cas, null)).status());
        assertEquals(Lease.STALE, item(backend, NS, "hot").lease());
        assertEquals("fresh", text(item(backend, NS, "hot").value()), "served stale");

        Result.Leased winner = assertInstanceOf(Result.Leased.class, run(backend, plain));
        assertTrue(winner.won(), "the first get after the invalidation wins");
        assertEquals(Lease.STALE_WON, winner.item().lease());
        assertFalse(assertInstanceOf(Result.Leased.class, run(backend, plain)).won());
        run(backend, new Operation.Touch(NS, bytes("hot"), START + 90_000));
        assertEquals(Lease.STALE_WON, item(backend, NS, "hot").lease(), "a touch keeps it");

        // A late writer's older CAS stores its value, still stale and handed out; a newer one is refused.
        Operation.Store late = new Operation.Store(NS, bytes("hot"), StoreMode.SET, bytes("late"), 0, Item.NEVER,
                cas, false, true);
        assertInstanceOf(Result.Stored.class, run(backend, late));
        Item kept = item(backend, NS, "hot");
        assertEquals("late", text(kept.value()));
        assertEquals(Lease.STALE_WON, kept.lease());
        assertEquals(START + 90_000, kept.expiresAt(), "the item's own expiry");
        Operation.Store newer = new Operation.Store(NS, bytes("hot"), StoreMode.SET, bytes("x"), 0, Item.NEVER,
                kept.cas() + 1, false, true);
        assertEquals(Status.EXISTS, run(backend, newer).status());

        if (mode == Mode.FILE) {
            close(backend);
            backend = openFile("0");
        }
        assertEquals(Lease.STALE_WON, item(backend, NS, "hot").lease(), "kept with the item");
    }

    @Test
    void arithmeticInPlaceKeepsTheLeaseAndALongerNumberDropsIt() throws Exception {
        Backend backend = openMemory();
        long cas = set(backend, "n", "10");
        run(backend, new Operation.Invalidate(NS, bytes("n"), cas, null));
        run(backend, new Operation.Arithmetic(NS, bytes("n"), true, 1, 0, false, Item.NEVER, 0));
        assertEquals(Lease.STALE, item(backend, NS, "n").lease(), "11 takes the place of 10");
        run(backend, new Operation.Arithmetic(NS, bytes("n"), true, 100, 0, false, Item.NEVER, 0));
        assertEquals(Lease.NONE, item(backend, NS, "n").lease(), "111 is a new item");
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void missingKeyIsNotFound(Mode mode) throws Exception {
        Backend backend = open(mode);
        assertEquals(Status.NOT_FOUND, get(backend, NS, "absent").status());
    }

    @Test
    void binaryKeysAreDistinctAndRoundTrip() throws Exception {
        Backend backend = openFile("0");
        byte[] high = {(byte) 0xff, 0x00, (byte) 0x80};
        byte[] low = {0x7f, 0x00, (byte) 0x80};
        run(backend, new Operation.Store(NS, high, StoreMode.SET, bytes("high"), 0, Item.NEVER, 0));
        run(backend, new Operation.Store(NS, low, StoreMode.SET, bytes("low"), 0, Item.NEVER, 0));
        close(backend);

        Backend reopened = openFile("0");
        assertEquals("high", text(assertInstanceOf(Result.Value.class,
                run(reopened, new Operation.Get(NS, high))).item().value()));
        assertEquals("low", text(assertInstanceOf(Result.Value.class,
                run(reopened, new Operation.Get(NS, low))).item().value()));
    }

    @Test
    void readsScansAndFlushesOfUnknownNamespacesCreateNone() throws Exception {
        Backend backend = openFile("0");
        set(backend, "written", "x");
        for (int i = 0; i < 200; i++) {
            Namespace unknown = new Namespace("collection-" + i);
            assertEquals(Status.NOT_FOUND, run(backend, new Operation.Get(unknown, bytes("k"))).status());
            assertTrue(run(backend, new Operation.Flush(unknown, 0)).ok());
            assertEquals(List.of(), assertInstanceOf(Result.Entries.class,
                    run(backend, new Operation.Scan(unknown, 10))).entries());
        }
        assertEquals(Status.NOT_FOUND, run(backend, new Operation.Get(NS, bytes("none"))).status());
        backend.close();
        open.remove(backend);
        try (MVStore file = new MVStore.Builder().fileName(dir.resolve("kvgate.mv.db").toString()).open()) {
            assertEquals(Set.of("ns:" + NS.name()), file.getMapNames().stream()
                    .filter(name -> name.startsWith("ns:")).collect(Collectors.toSet()));
        }
    }

    @Test
    void aStoreFileWrittenWithStringKeysOpensWithTheSameKeysInUnsignedByteOrder() throws Exception {
        // Earlier versions kept keys as ISO-8859-1 strings; the file form of a key is unchanged, so such a file
        // opens with every key found, and scans keep their order (0xff sorts after 0x7f, as unsigned bytes do).
        try (MVStore old = new MVStore.Builder().fileName(dir.resolve("kvgate.mv.db").toString()).open()) {
            MVMap<String, byte[]> map = old.openMap("ns:" + NS.name(), new MVMap.Builder<String, byte[]>()
                    .keyType(StringDataType.INSTANCE).valueType(ItemType.INSTANCE));
            map.put("\u00ff\u0000\u0080", ItemType.pack(new Item(bytes("high"), 7, 11, Item.NEVER)));
            map.put("\u007f\u0000\u0080", ItemType.pack(new Item(bytes("low"), 8, 12, START + 5000)));
            old.commit();
        }

        Backend reopened = openFile("0");
        Item high = assertInstanceOf(Result.Value.class,
                run(reopened, new Operation.Get(NS, new byte[] {(byte) 0xff, 0x00, (byte) 0x80}))).item();
        assertEquals(List.of("high", 7, 11L, Item.NEVER), List.of(text(high.value()), high.flags(), high.cas(),
                high.expiresAt()));
        Result.Entries entries = assertInstanceOf(Result.Entries.class, run(reopened, new Operation.Scan(NS, 10)));
        assertEquals(List.of("\u007f\u0000\u0080", "\u00ff\u0000\u0080"),
                entries.entries().stream().map(entry -> text(entry.key())).toList());
        Item low = entries.entries().get(0).item();
        assertEquals(List.of("low", 8, 12L, START + 5000), List.of(text(low.value()), low.flags(), low.cas(),
                low.expiresAt()));
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void valueOverMaxItemSizeIsTooLarge(Mode mode) throws Exception {
        Backend backend = open(mode);
        Result result = run(backend, new Operation.Store(NS, bytes("big"), StoreMode.SET, new byte[MAX_ITEM_SIZE + 1],
                0, Item.NEVER, 0));
        assertEquals(Status.TOO_LARGE, result.status());
        assertEquals(Status.NOT_FOUND, get(backend, NS, "big").status());
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void pipelinedSetThenGetReadsWhatWasSet(Mode mode) throws Exception {
        Backend backend = open(mode);
        List<Operation> burst = List.of(
                new Operation.Store(NS, bytes("p"), StoreMode.SET, bytes("1"), 0, Item.NEVER, 0),
                new Operation.Get(NS, bytes("p")),
                new Operation.Store(NS, bytes("p"), StoreMode.APPEND, bytes("2"), 0, Item.NEVER, 0),
                new Operation.Get(NS, bytes("p")));
        var stages = backend.executeAll(burst);
        assertEquals("1", text(assertInstanceOf(Result.Value.class,
                stages.get(1).toCompletableFuture().get(5, SECONDS)).item().value()));
        assertEquals("12", text(assertInstanceOf(Result.Value.class,
                stages.get(3).toCompletableFuture().get(5, SECONDS)).item().value()));
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void aBurstReadAheadAnswersAsOperationsOneByOne(Mode mode) throws Exception {
        Backend backend = open(mode);
        for (int i = 0; i < 100; i++) {
            set(backend, NS, "k" + i, "v" + i, 0, Item.NEVER);
        }
        set(backend, OTHER, "k1", "other", 0, Item.NEVER);
        run(backend, new Operation.Delete(NS, bytes("k2"), 0));
        List<Operation> burst = List.of(
                new Operation.Get(NS, bytes("k1")),
                new Operation.Get(OTHER, bytes("k1")),
                new Operation.Get(NS, bytes("k2")),
                new Operation.Get(NS, bytes("absent")),
                new Operation.Flush(OTHER, 0),
                new Operation.Get(OTHER, bytes("k1")),
                new Operation.Store(NS, bytes("k3"), StoreMode.SET, bytes("new"), 0, Item.NEVER, 0),
                new Operation.Get(NS, bytes("k3")),
                new Operation.Delete(NS, bytes("k4"), 0),
                new Operation.Get(NS, bytes("k4")),
                new Operation.Get(NS, bytes("k99")));
        var stages = backend.executeAll(burst);
        List<String> answers = new ArrayList<>();
        for (var stage : stages) {
            Result result = stage.toCompletableFuture().get(5, SECONDS);
            answers.add(result instanceof Result.Value value ? text(value.item().value()) : result.status().name());
        }
        assertEquals(List.of("v1", "other", "NOT_FOUND", "NOT_FOUND", "OK", "NOT_FOUND", "OK", "new", "OK",
                "NOT_FOUND", "v99"), answers);
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void expiredItemIsNotReturnedEvenBeforePurge(Mode mode) throws Exception {
        Backend backend = open(mode);
        set(backend, NS, "short", "v", 0, START + 1_000);
        clock.advance(1_000);
        assertEquals(Status.NOT_FOUND, get(backend, NS, "short").status());
    }

    // --- CAS ---

    @ParameterizedTest
    @EnumSource(Mode.class)
    void casValuesAreUniqueAndIncreasingAcrossManyMutations(Mode mode) throws Exception {
        Backend backend = open(mode);
        long previous = 0;
        Set<Long> seen = new HashSet<>();
        for (int i = 0; i < 1_000; i++) {
            String key = "k" + (i % 7);
            long cas = switch (i < 7 ? 0 : i % 3) {
                case 0 -> set(backend, key, Integer.toString(i));
                case 1 -> assertInstanceOf(Result.Number.class, run(backend, increment(key, 1))).cas();
                default -> assertInstanceOf(Result.Stored.class, run(backend, new Operation.Store(NS, bytes(key),
                        StoreMode.PREPEND, bytes("1"), 0, Item.NEVER, 0))).cas();
            };
            assertTrue(cas > previous, "CAS " + cas + " not above " + previous + " at mutation " + i);
            assertTrue(seen.add(cas));
            previous = cas;
            if (i % 100 == 0) {
                // A wall clock going backwards must not make CAS values repeat.
                clock.advance(i % 200 == 0 ? 5 : -5);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void casCheckedStoreSucceedsOnlyWithTheCurrentCas(Mode mode) throws Exception {
        Backend backend = open(mode);
        long cas = set(backend, "c", "1");
        long newer = set(backend, "c", "2");
        Result stale = run(backend, new Operation.Store(NS, bytes("c"), StoreMode.SET, bytes("3"), 0, Item.NEVER, cas));
        assertEquals(Status.EXISTS, stale.status());
        Result fresh = run(backend, new Operation.Store(NS, bytes("c"), StoreMode.SET, bytes("3"), 0, Item.NEVER,
                newer));
        assertTrue(fresh.ok());
        assertEquals("3", value(backend, NS, "c"));
    }

    // --- concurrency ---

    private void assertConcurrentIncrementsAreAtomic(Backend backend) throws Exception {
        int threads = 8;
        int perThread = 2_000;
        set(backend, "counter", "0");
        List<List<Result.Number>> perThreadResults = runConcurrently(threads, () -> {
            List<Result.Number> results = new ArrayList<>(perThread);
            for (int i = 0; i < perThread; i++) {
                results.add(assertInstanceOf(Result.Number.class, run(backend, increment("counter", 1))));
            }
            return results;
        });

        assertEquals(Integer.toString(threads * perThread), value(backend, NS, "counter"));
        // Each increment must have seen a distinct predecessor: together they returned exactly 1..16000.
        Set<Long> values = new HashSet<>();
        Set<Long> casValues = new HashSet<>();
        for (List<Result.Number> results : perThreadResults) {
            for (Result.Number number : results) {
                values.add(number.value());
                casValues.add(number.cas());
            }
        }
        assertEquals(threads * perThread, values.size());
        assertEquals(1L, values.stream().mapToLong(Long::longValue).min().orElseThrow());
        assertEquals(threads * perThread, values.stream().mapToLong(Long::longValue).max().orElseThrow());
        assertEquals(threads * perThread, casValues.size(), "CAS values repeated under concurrency");
    }

    @Test
    void concurrentIncrementsOfOneKeyLoseNoUpdate() throws Exception {
        assertConcurrentIncrementsAreAtomic(openMemory());
    }

    @Test
    void concurrentIncrementsOfOneKeyLoseNoUpdateWithGroupCommit() throws Exception {
        assertConcurrentIncrementsAreAtomic(openFile("0"));
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void concurrentAddOfTheSameKeyHasExactlyOneWinner(Mode mode) throws Exception {
        Backend backend = open(mode);
        int threads = 16;
        for (int round = 0; round < 20; round++) {
            String key = "add-" + round;
            AtomicLong ids = new AtomicLong();
            List<String> outcomes = runConcurrently(threads, () -> {
                String mine = "thread-" + ids.incrementAndGet();
                Result result = run(backend, new Operation.Store(NS, bytes(key), StoreMode.ADD, bytes(mine), 0,
                        Item.NEVER, 0));
                return result.ok() ? mine : result.status().name();
            });
            List<String> winners = outcomes.stream().filter(o -> o.startsWith("thread-")).toList();
            assertEquals(1, winners.size(), "winners of " + key + ": " + winners);
            assertEquals(threads - 1, outcomes.stream().filter(Status.EXISTS.name()::equals).count());
            assertEquals(winners.get(0), value(backend, NS, key));
        }
    }

    // --- durability ---

    private void assertItemsSurviveReopen(String commitIntervalMs) throws Exception {
        Backend backend = openFile(commitIntervalMs);
        Map<String, Item> written = new HashMap<>();
        long maxCas = 0;
        for (int i = 0; i < 500; i++) {
            String key = "item-" + i;
            String value = "v".repeat(i % 50) + i;
            int flags = i * 7919 - 1_000_000;
            long expiresAt = i % 2 == 0 ? Item.NEVER : START + 3_600_000 + i;
            long cas = set(backend, NS, key, value, flags, expiresAt);
            written.put(key, new Item(bytes(value), flags, cas, expiresAt));
            maxCas = Math.max(maxCas, cas);
        }
        close(backend);

        Backend reopened = openFile(commitIntervalMs);
        for (Map.Entry<String, Item> entry : written.entrySet()) {
            Item expected = entry.getValue();
            Item actual = item(reopened, NS, entry.getKey());
            assertArrayEquals(expected.value(), actual.value(), entry.getKey());
            assertEquals(expected.flags(), actual.flags(), entry.getKey());
            assertEquals(expected.cas(), actual.cas(), entry.getKey());
            assertEquals(expected.expiresAt(), actual.expiresAt(), entry.getKey());
        }
        assertEquals(500, currItems(reopened));

        // The clock has not moved, so only a persisted high-water mark keeps new CAS values above the old ones.
        long after = set(reopened, "after-reopen", "x");
        assertTrue(after > maxCas, "CAS after reopen " + after + " not above " + maxCas);
        long incremented = assertInstanceOf(Result.Number.class,
                run(reopened, increment("after-reopen-counter", 1))).cas();
        assertTrue(incremented > after);
    }

    @Test
    void acknowledgedItemsSurviveCloseAndReopenWithGroupCommit() throws Exception {
        assertItemsSurviveReopen("0");
    }

    @Test
    void acknowledgedItemsSurviveCleanCloseWithCommitInterval() throws Exception {
        assertItemsSurviveReopen("50");
    }

    @Test
    void acknowledgedWritesAreInTheStoreFileBeforeClose() throws Exception {
        Backend backend = openFile("0");
        for (int i = 0; i < 50; i++) {
            set(backend, "crash-" + i, Integer.toString(i));
        }
        // Copying the file of a running store is what a crash right after the acknowledgement leaves behind.
        Path crashed = dir.resolve("crashed");
        Files.createDirectories(crashed);
        try (var files = Files.list(dir)) {
            for (Path file : files.filter(Files::isRegularFile).toList()) {
                Files.copy(file, crashed.resolve(file.getFileName()));
            }
        }

        Backend recovered = open(Map.of("path", crashed.toString(), "commit_interval_ms", "0"));
        for (int i = 0; i < 50; i++) {
            assertEquals(Integer.toString(i), value(recovered, NS, "crash-" + i));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"0", "20"})
    void aCasHandedOutBeforeACrashNeverRepeatsAfterItEvenWithAClockThatDidNotMove(String interval) throws Exception {
        // The clock is frozen: only the saved mark can keep new CAS values above those in the file.
        Path live = dir.resolve("live");
        Backend backend = open(Map.of("path", live.toString(), "commit_interval_ms", interval));
        long before = set(backend, "k", "before the crash");
        for (int i = 0; i < 100; i++) {
            set(backend, "other-" + i, "x");
        }
        // What a kill -9 leaves: a copy of the file, taken again until MVStore's writer (with an interval) has
        // committed the item into it.
        Thread.sleep(100); // past the writes, so that a copy is not taken in the middle of one
        Backend recovered = null;
        for (int attempt = 0; recovered == null; attempt++) {
            Path crashed = dir.resolve("crashed-" + attempt);
            Files.createDirectories(crashed);
            try (var files = Files.list(live)) {
                for (Path file : files.filter(Files::isRegularFile).toList()) {
                    Files.copy(file, crashed.resolve(file.getFileName()));
                }
            }
            Backend copy = open(Map.of("path", crashed.toString(), "commit_interval_ms", interval));
            if (run(copy, new Operation.Get(NS, bytes("k"))).ok()) {
                recovered = copy;
            } else {
                assertTrue(attempt < 100, "the item never reached the file");
                Thread.sleep(50);
            }
        }
        assertEquals("before the crash", value(recovered, NS, "k"));
        long after = set(recovered, "k", "after the crash");
        assertTrue(after > before, after + " after the crash, " + before + " before it");
        assertEquals(Status.EXISTS, run(recovered, new Operation.Store(NS, bytes("k"), StoreMode.SET, bytes("stale"),
                0, Item.NEVER, before)).status(), "a CAS from before the crash is stale");
    }

    @Test
    void deletesTouchesAndFlushesSurviveReopen() throws Exception {
        Backend backend = openFile("0");
        set(backend, NS, "deleted", "x", 0, Item.NEVER);
        set(backend, NS, "touched", "x", 0, Item.NEVER);
        set(backend, OTHER, "flushed", "x", 0, Item.NEVER);
        assertTrue(run(backend, new Operation.Delete(NS, bytes("deleted"), 0)).ok());
        assertTrue(run(backend, new Operation.Touch(NS, bytes("touched"), START + 99_000)).ok());
        assertTrue(run(backend, new Operation.Flush(OTHER, 0)).ok());
        close(backend);

        Backend reopened = openFile("0");
        assertEquals(Status.NOT_FOUND, get(reopened, NS, "deleted").status());
        assertEquals(START + 99_000, item(reopened, NS, "touched").expiresAt());
        assertEquals(Status.NOT_FOUND, get(reopened, OTHER, "flushed").status());
        assertEquals(1, currItems(reopened));
    }

    // --- modes ---

    @Test
    void inMemoryStoreWorksAndIsNotDurable() throws Exception {
        Backend backend = openMemory();
        assertEquals(EnumSet.of(Capability.SCAN, Capability.KEEP_EXPIRY, Capability.LEASES,
                Capability.ARITHMETIC_EXPIRY, Capability.CHOSEN_CAS), backend.capabilities());
        set(backend, "m", "memory");
        assertEquals("memory", value(backend, NS, "m"));
        assertEquals(1, currItems(backend));
        assertFalse(Files.exists(Path.of(LocalBackendFactory.IN_MEMORY)), "in-memory mode created a directory");
    }

    @Test
    void fileStoreIsDurable() throws Exception {
        Backend backend = openFile("0");
        assertEquals(EnumSet.of(Capability.DURABLE, Capability.SCAN, Capability.KEEP_EXPIRY, Capability.LEASES,
                Capability.ARITHMETIC_EXPIRY, Capability.CHOSEN_CAS), backend.capabilities());
        assertTrue(Files.exists(dir.resolve("kvgate.mv.db")));
    }

    // --- namespaces ---

    @ParameterizedTest
    @EnumSource(Mode.class)
    void scanListsTheLiveItemsOfOneNamespaceOnly(Mode mode) throws Exception {
        Backend backend = open(mode);
        set(backend, OTHER, "a", "1", 7, Item.NEVER);
        set(backend, OTHER, "b", "2", 0, START + 1000);
        set(backend, OTHER, "gone", "3", 0, START + 10);
        set(backend, NS, "elsewhere", "4", 0, Item.NEVER);
        clock.advance(500);
        Result.Entries entries = assertInstanceOf(Result.Entries.class,
                run(backend, new Operation.Scan(OTHER, 10)));
        Map<String, Item> found = new HashMap<>();
        for (Result.Entry entry : entries.entries()) {
            found.put(text(entry.key()), entry.item());
        }
        assertEquals(Set.of("a", "b"), found.keySet());
        assertEquals("1", text(found.get("a").value()));
        assertEquals(7, found.get("a").flags());
        assertEquals(START + 1000, found.get("b").expiresAt());
        assertEquals(Status.TOO_LARGE, run(backend, new Operation.Scan(OTHER, 1)).status());
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void scanOfAnUnknownNamespaceIsEmpty(Mode mode) throws Exception {
        Backend backend = open(mode);
        Namespace unknown = new Namespace("never-written");
        assertEquals(new Result.Entries(List.of()), run(backend, new Operation.Scan(unknown, 10)));
        assertEquals(0, currItems(backend));
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void sameKeyInTwoNamespacesHoldsTwoValues(Mode mode) throws Exception {
        Backend backend = open(mode);
        set(backend, NS, "shared", "in-default", 1, Item.NEVER);
        set(backend, OTHER, "shared", "in-other", 2, Item.NEVER);
        assertEquals("in-default", value(backend, NS, "shared"));
        assertEquals("in-other", value(backend, OTHER, "shared"));
        assertTrue(run(backend, new Operation.Delete(OTHER, bytes("shared"), 0)).ok());
        assertEquals("in-default", value(backend, NS, "shared"));
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void flushClearsOneNamespaceButNotAnother(Mode mode) throws Exception {
        Backend backend = open(mode);
        for (int i = 0; i < 10; i++) {
            set(backend, NS, "k" + i, "d", 0, Item.NEVER);
            set(backend, OTHER, "k" + i, "o", 0, Item.NEVER);
        }
        assertEquals(Result.DONE, run(backend, new Operation.Flush(NS, 0)));
        for (int i = 0; i < 10; i++) {
            assertEquals(Status.NOT_FOUND, get(backend, NS, "k" + i).status());
            assertEquals("o", value(backend, OTHER, "k" + i));
        }
        assertEquals(10, currItems(backend));
    }

    // --- expiry purge and stats ---

    @ParameterizedTest
    @EnumSource(Mode.class)
    void expiredItemsArePurgedInTheBackground(Mode mode) throws Exception {
        Backend backend = open(Map.of("path", mode.path(dir), "purge_interval_ms", "100"));
        for (int i = 0; i < 20; i++) {
            set(backend, NS, "short-" + i, "x", 0, START + 1_000);
            set(backend, OTHER, "short-" + i, "x", 0, START + 1_000);
        }
        set(backend, NS, "forever", "x", 0, Item.NEVER);
        set(backend, OTHER, "later", "x", 0, START + 10_000);
        // Not yet expired: several purge rounds must leave them alone.
        Thread.sleep(300);
        assertEquals(42, currItems(backend));

        clock.advance(1_000);
        await("expired items purged", () -> currItems(backend) == 2);
        assertEquals("x", value(backend, NS, "forever"));
        assertEquals("x", value(backend, OTHER, "later"));
    }

    @Test
    void purgeReachesNamespacesUntouchedSinceReopen() throws Exception {
        Backend backend = openFile("0");
        for (int i = 0; i < 10; i++) {
            set(backend, OTHER, "short-" + i, "x", 0, START + 1_000);
        }
        set(backend, NS, "forever", "x", 0, Item.NEVER);
        close(backend);

        clock.advance(5_000);
        Backend reopened = open(Map.of("path", dir.toString(), "purge_interval_ms", "100"));
        await("expired items of an untouched namespace purged", () -> currItems(reopened) == 1);
    }

    @Test
    void currItemsCountsEveryNamespaceIncludingAfterReopen() throws Exception {
        Backend backend = openFile("0");
        Namespace third = new Namespace("third");
        fill(backend, NS, "a", 5);
        fill(backend, OTHER, "b", 3);
        set(backend, third, "c", "x", 0, Item.NEVER);
        assertEquals(9, currItems(backend));
        close(backend);

        Backend reopened = openFile("0");
        assertEquals(9, currItems(reopened), "namespaces not yet touched since reopen must be counted");
        assertTrue(run(reopened, new Operation.Delete(third, bytes("c"), 0)).ok());
        assertEquals(8, currItems(reopened));
    }

    @Test
    void currItemsInMemoryCountsEveryNamespaceAndFollowsWritesAndFlushes() throws Exception {
        Backend backend = openMemory();
        fill(backend, NS, "a", 5_000);
        fill(backend, OTHER, "b", 3);
        set(backend, NS, "a0", "replaced", 0, Item.NEVER);
        assertEquals(5_003, currItems(backend));
        assertTrue(run(backend, new Operation.Delete(OTHER, bytes("b0"), 0)).ok());
        assertEquals(5_002, currItems(backend));
        run(backend, new Operation.Flush(NS, 0));
        assertEquals(2, currItems(backend));
    }

    private static long stat(Backend backend, String name) {
        return Long.parseLong(backend.stats().get(name));
    }

    @Test
    void inMemoryTheItemsAreHeldToTheMemoryLimitByEviction() throws Exception {
        Backend backend = open(Map.of("path", LocalBackendFactory.IN_MEMORY, "memory_limit", "256k"));
        assertEquals(256 * 1024, stat(backend, "limit_maxbytes"));
        String value = "v".repeat(100);
        for (int i = 0; i < 5_000; i++) {
            set(backend, NS, "key" + i, value, 0, Item.NEVER);
            assertTrue(stat(backend, "bytes") <= 256 * 1024, "over the limit after write " + i);
        }
        long kept = currItems(backend);
        assertTrue(kept > 1_000 && kept < 2_500, kept + " items in 256 KiB");
        assertEquals(5_000 - kept, stat(backend, "evictions"), "each item not kept was evicted");
        // Which items went is MemoryBudgetTest's: here the clock stands still, and every item is as old as the next.
        run(backend, new Operation.Flush(NS, 0));
        assertEquals(0, stat(backend, "bytes"), "a flush gives back all a namespace took");
    }

    @Test
    void theDefaultMemoryLimitIsHalfTheLargestHeapAndAFileStoreHasNone() throws Exception {
        assertEquals(Runtime.getRuntime().maxMemory() / 2, stat(openMemory(), "limit_maxbytes"));
        assertNull(openFile("0").stats().get("limit_maxbytes"), "the file is not held in memory");
    }

    private static Status failure(Result result) {
        return assertInstanceOf(Result.Failure.class, result).status();
    }

    @ParameterizedTest
    @ValueSource(strings = {"0", "50"})
    void afterAFailedForceEveryRequestFailsUntilARestartAndTheFailedWriteIsNeverSeen(String interval)
            throws Exception {
        Backend backend = openFailing(Map.of("path", dir.toString(), "fsync", "true", "commit_interval_ms", interval));
        set(backend, "kept", "v");
        Thread.sleep(200); // with an interval: past its force
        FailingFilePath.FAIL_FORCE.set(true);
        try {
            Result lost = run(backend, new Operation.Store(NS, bytes("lost"), StoreMode.SET, bytes("v"), 0,
                    Item.NEVER, 0));
            if (interval.equals("0")) {
                assertEquals(Status.BACKEND_ERROR, failure(lost), "its commit's force failed");
            } else {
                assertInstanceOf(Result.Stored.class, lost, "acknowledged before the force, as the interval says");
                await("the store fails at its next force",
                        () -> !(backend.execute(new Operation.Get(NS, bytes("kept"))).toCompletableFuture().join()
                                instanceof Result.Value));
            }
            assertEquals(Status.BACKEND_ERROR, failure(get(backend, NS, "lost")),
                    "a write not known to be on the disk is not read back");
            assertEquals(Status.BACKEND_ERROR, failure(get(backend, NS, "kept")), "the store has failed");
        } finally {
            FailingFilePath.FAIL_FORCE.set(false);
        }
        assertEquals(Status.BACKEND_ERROR, failure(run(backend, new Operation.Store(NS, bytes("later"),
                StoreMode.SET, bytes("v"), 0, Item.NEVER, 0))), "a force that works again proves nothing");
        close(backend);
        Backend restarted = openFile("0");
        assertEquals("v", value(restarted, NS, "kept"), "what was forced before the failure is kept");
    }

    @Test
    void closeDuringAPurgeRoundStillCommitsAcknowledgedWrites() throws Exception {
        Backend backend = openFile("0");
        for (int i = 0; i < 2_000; i++) {
            set(backend, OTHER, "cold-" + i, "x".repeat(40), 0, Item.NEVER);
        }
        close(backend);

        // After reopening, the purge has to read pages from the file, which is where an interrupt bites.
        PurgeHoldingClock holding = new PurgeHoldingClock(START);
        Backend reopened = open(Map.of("path", dir.toString(), "commit_interval_ms", "60000",
                "purge_interval_ms", "100"), holding);
        set(reopened, "acknowledged", "before-close");
        holding.arm();
        assertTrue(holding.purgeHeld.await(5, SECONDS), "purge round never started");

        open.remove(reopened);
        Exception closeFailure = null;
        try {
            reopened.close();
        } catch (Exception e) {
            closeFailure = e;
        }

        Backend afterRestart = openFile("0");
        Result acknowledged = get(afterRestart, NS, "acknowledged");
        Exception failure = closeFailure;
        assertAll(
                () -> assertNull(failure, () -> "close() failed when it arrived during a purge round: " + failure),
                () -> assertEquals(Status.OK, acknowledged.status(), "an acknowledged write was lost by close()"));
        assertEquals(2_001, currItems(afterRestart));
    }

    /**
     * A steady writer over a few megabytes of items keeps the file near that size: space that commits free is reused
     * once they are on the disk (at once when each is forced), not kept for MVStore's 45 s, which with a commit per
     * write of about 24 KiB made a file of gigabytes within a minute.
     */
    @Test
    void aSteadyWriterKeepsTheFileNearTheSizeOfItsItems() throws Exception {
        for (boolean fsync : new boolean[] {false, true}) {
            Path path = dir.resolve("steady-" + fsync);
            Backend backend = open(Map.of("path", path.toString(), "fsync", Boolean.toString(fsync)),
                    Clock.systemUTC());
            String value = "v".repeat(200);
            long writes = 0;
            long start = System.nanoTime();
            while (System.nanoTime() - start < 3_000_000_000L) {
                set(backend, "steady-" + (writes++ % 2000), value);
            }
            long size = Files.size(path.resolve("kvgate.mv.db"));
            long bound = (fsync ? 32L : 128L) << 20;
            assertTrue(size < bound, "fsync " + fsync + ": " + (size >> 20) + " MiB of file after " + writes
                    + " writes of 2000 keys of 200 bytes");
        }
    }

    /** A frozen clock that holds one thread inside its first reading of the time, until released. */
    static final class HoldingClock extends MutableClock {
        volatile Thread target;
        final CountDownLatch held = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);

        HoldingClock() {
            super(START);
        }

        @Override
        public long millis() {
            if (Thread.currentThread() == target) {
                target = null;
                held.countDown();
                try {
                    release.await(10, SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return super.millis();
        }
    }

    @Test
    void aFlushOfTheFileWaitsForAReadModifyWriteUnderWayAndLandsAfterIt() throws Exception {
        HoldingClock holding = new HoldingClock();
        Backend backend = open(Map.of("path", dir.toString()), holding);
        set(backend, "k", "old-data");
        CompletableFuture<Result> appended = new CompletableFuture<>();
        Thread writer = new Thread(() -> {
            try {
                appended.complete(run(backend, new Operation.Store(NS, bytes("k"), StoreMode.APPEND, bytes("+x"), 0,
                        Item.NEVER, 0)));
            } catch (Exception e) {
                appended.completeExceptionally(e);
            }
        });
        holding.target = writer;
        writer.start();
        assertTrue(holding.held.await(5, SECONDS), "the append has read the item and is deciding, its key locked");
        CompletableFuture<Result> flushed = CompletableFuture.supplyAsync(() -> {
            try {
                return run(backend, new Operation.Flush(NS, 0));
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        Thread.sleep(200);
        assertFalse(flushed.isDone(), "the flush waits for the append");
        holding.release.countDown();
        assertTrue(appended.get(5, SECONDS).ok());
        assertTrue(flushed.get(5, SECONDS).ok());
        assertEquals(Status.NOT_FOUND, get(backend, NS, "k").status(),
                "the flush came last: nothing of old-data is left");
    }
}
