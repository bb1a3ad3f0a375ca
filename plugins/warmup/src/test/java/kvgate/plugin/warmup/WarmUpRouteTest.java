package kvgate.plugin.warmup;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import kvgate.spi.Item;
import kvgate.spi.Namespace;
import kvgate.spi.Operation;
import kvgate.spi.Result;
import kvgate.spi.Route;
import kvgate.spi.RouteContext;
import kvgate.spi.Setting;
import kvgate.spi.Settings;
import kvgate.spi.Status;
import kvgate.spi.StoreMode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The warm-up node over two stores in memory that apply the operations' shared semantics ({@code ItemTransition}),
 * with gates that hold one operation back to make each race happen in a chosen order.
 */
class WarmUpRouteTest {
    private static final Namespace NS = Namespace.DEFAULT;

    private final MemoryRoute newStore = new MemoryRoute();
    private final MemoryRoute oldStore = new MemoryRoute();
    private final Map<String, LongAdder> counters = new ConcurrentHashMap<>();
    private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();

    @AfterEach
    void stopScheduler() {
        scheduler.shutdownNow();
    }

    private WarmUpRoute node(Route newer, Route older, String... settings) {
        WarmUpRouteFactory factory = new WarmUpRouteFactory();
        Map<String, String> values = new HashMap<>();
        for (Setting setting : factory.settings()) {
            values.put(setting.key(), setting.defaultValue());
        }
        values.put("new", "fresh");
        values.put("old", "stale");
        for (int i = 0; i < settings.length; i += 2) {
            values.put(settings[i], settings[i + 1]);
        }
        RouteContext context = new RouteContext("move", new Settings(values), name -> switch (name) {
            case "fresh" -> newer;
            case "stale" -> older;
            default -> throw new IllegalArgumentException("no route named '" + name + "'");
        }, scheduler, name -> counters.computeIfAbsent(name, ignored -> new LongAdder()));
        return (WarmUpRoute) factory.build(context);
    }

    private WarmUpRoute node(String... settings) {
        return node(newStore, oldStore, settings);
    }

    private long counter(String name) {
        LongAdder counter = counters.get(name);
        return counter == null ? 0 : counter.sum();
    }

    private static Result run(Route route, Operation operation) {
        return route.execute(operation).toCompletableFuture().join();
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static Operation.Get get(String key) {
        return new Operation.Get(NS, bytes(key));
    }

    private static Operation.Store store(StoreMode mode, String key, String value, long cas) {
        return new Operation.Store(NS, bytes(key), mode, bytes(value), 0, Item.NEVER, cas);
    }

    private static Operation.Store set(String key, String value) {
        return store(StoreMode.SET, key, value, 0);
    }

    private static Operation.Delete delete(String key) {
        return new Operation.Delete(NS, bytes(key), 0);
    }

    private static String text(Item item) {
        return new String(item.value(), StandardCharsets.UTF_8);
    }

    private static String value(Result result) {
        return text(assertInstanceOf(Result.Value.class, result).item());
    }

    @Test
    void aReadMissingTheNewStoreFillsItWithTheFlagsAndTheSameExpiryAndAnswersItsCas() {
        long expiresAt = System.currentTimeMillis() + 3_600_000;
        run(oldStore, new Operation.Store(NS, bytes("k"), StoreMode.SET, bytes("v0"), 7, expiresAt, 0));
        WarmUpRoute node = node();
        Result.Value read = assertInstanceOf(Result.Value.class, run(node, get("k")));
        Item filled = newStore.item("k");
        assertNotNull(filled, "the read filled the new store");
        assertEquals("v0", text(filled));
        assertEquals(7, filled.flags());
        assertEquals(expiresAt, filled.expiresAt());
        assertEquals(filled.cas(), read.item().cas(), "the CAS answered is the new store's");
        assertNotNull(oldStore.item("k"), "a read leaves the old store alone");
        assertEquals(1, counter("filled"));
        // Now a CAS store with that CAS works through the node.
        assertTrue(run(node, store(StoreMode.SET, "k", "v1", read.item().cas())).ok());
        assertEquals("v1", text(newStore.item("k")));
        assertNull(oldStore.item("k"), "the write invalidated the old copy");
    }

    @Test
    void aLeaseGetReadsAsAGetAndTheNewStoreDecidesTheLease() {
        run(oldStore, set("k", "v0"));
        long cas = oldStore.item("k").cas();
        run(oldStore, new Operation.Invalidate(NS, bytes("k"), cas, null));
        WarmUpRoute node = node();
        Operation.LeaseGet plain = new Operation.LeaseGet(NS, bytes("k"), null, null, null);
        Result.Leased first = assertInstanceOf(Result.Leased.class, run(node, plain));
        assertEquals("v0", text(first.item()));
        assertNotNull(oldStore.item("k"), "a lease get leaves the old store alone, as a get does");
        assertNotNull(newStore.item("k"), "and fills the new one");
        // The copy is a fresh item: the SPI writes no lease, so the new store's first lease get finds it fresh.
        assertEquals(kvgate.spi.Lease.NONE, newStore.item("k").lease());
        assertTrue(!first.won());
        Operation.LeaseGet vivify = new Operation.LeaseGet(NS, bytes("absent"), null,
                System.currentTimeMillis() + 60_000, null);
        assertTrue(assertInstanceOf(Result.Leased.class, run(node, vivify)).won(), "a placeholder is a change");
        assertNotNull(newStore.item("absent"));
    }

    @Test
    void fillMaxTtlCapsTheExpiryOfCopiesOfItemsThatNeverExpire() {
        run(oldStore, set("k", "v0"));
        long before = System.currentTimeMillis();
        run(node("fill_max_ttl_s", "60"), get("k"));
        long expiresAt = newStore.item("k").expiresAt();
        assertTrue(expiresAt >= before + 60_000 && expiresAt <= System.currentTimeMillis() + 60_000, "" + expiresAt);
    }

    @Test
    void readModifyWritesOnAKeyOnlyInTheOldStoreApplyToItsValue() {
        run(oldStore, set("n", "41"));
        run(oldStore, set("a", "ab"));
        run(oldStore, set("x", "taken"));
        run(oldStore, set("r", "before"));
        WarmUpRoute node = node();
        Result number = run(node, new Operation.Arithmetic(NS, bytes("n"), true, 1, 0, false, Item.NEVER, 0));
        assertEquals(42, assertInstanceOf(Result.Number.class, number).value());
        assertTrue(run(node, store(StoreMode.APPEND, "a", "c", 0)).ok());
        assertEquals(Status.EXISTS, run(node, store(StoreMode.ADD, "x", "mine", 0)).status(),
                "add must see the key the old store holds");
        assertTrue(run(node, store(StoreMode.REPLACE, "r", "after", 0)).ok());
        long later = System.currentTimeMillis() + 600_000;
        Result touched = run(node, new Operation.Touch(NS, bytes("a"), later));
        assertEquals(later, assertInstanceOf(Result.Value.class, touched).item().expiresAt());

        assertEquals("42", text(newStore.item("n")));
        assertEquals("abc", text(newStore.item("a")));
        assertEquals("taken", text(newStore.item("x")));
        assertEquals("after", text(newStore.item("r")));
        for (String key : new String[] {"n", "a", "r"}) {
            assertNull(oldStore.item(key), key + " was invalidated in the old store");
        }
        assertEquals(Status.NOT_FOUND,
                run(node, new Operation.Arithmetic(NS, bytes("none"), true, 1, 0, false, Item.NEVER, 0)).status());
        Result created = run(node, new Operation.Arithmetic(NS, bytes("made"), true, 1, 5, true, Item.NEVER, 0));
        assertEquals(5, assertInstanceOf(Result.Number.class, created).value(), "create with the initial value");
    }

    @Test
    void aDeleteRemovesTheKeyFromBothAndIsOkWhenEitherHadIt() {
        run(oldStore, set("only-old", "v"));
        run(oldStore, set("both", "v"));
        run(newStore, set("both", "v"));
        WarmUpRoute node = node();
        assertTrue(run(node, delete("only-old")).ok());
        assertTrue(run(node, delete("both")).ok());
        assertEquals(Status.NOT_FOUND, run(node, delete("neither")).status());
        assertEquals(0, newStore.size());
        assertEquals(0, oldStore.size());
        assertEquals(Status.NOT_FOUND, run(node, get("only-old")).status());
    }

    @Test
    void aFailingOldStoreIsAnsweredAsAFailureNeverAsNotFound() {
        Route down = operation -> CompletableFuture.completedFuture(Result.failure(Status.TEMPORARY_FAILURE, "down"));
        WarmUpRoute node = node(newStore, down);
        assertEquals(Status.TEMPORARY_FAILURE, run(node, get("k")).status());
        run(newStore, set("here", "v"));
        assertEquals("v", value(run(node, get("here"))), "keys in the new store are answered");
    }

    @Test
    void aWriteWhoseInvalidationFailsChangesNothingAndSaysSo() {
        run(oldStore, set("k", "v0"));
        Route failingDeletes = operation -> operation instanceof Operation.Delete
                ? CompletableFuture.completedFuture(Result.failure(Status.BACKEND_ERROR, "lost"))
                : oldStore.execute(operation);
        WarmUpRoute node = node(newStore, failingDeletes);
        assertEquals(Status.BACKEND_ERROR, run(node, set("k", "v1")).status());
        assertEquals(Status.BACKEND_ERROR, run(node, delete("k")).status());
        assertEquals("v0", text(newStore.item("k")), "only the warm-up's copy reached the new store");
        assertEquals("v0", value(run(node, get("k"))));
        assertEquals(2, counter("invalidate_failed"));
    }

    /**
     * A store whose reads do not tell the expiry (okuyama's, memcached's): a read copies an item without it; the
     * backfill, whose listing told the expiry, gives the copy that expiry, unless a write of the key came since the
     * listing began.
     */
    @Test
    void theBackfillGivesACopyMadeByAReadTheExpiryItsListingTold() throws Exception {
        long expiresAt = System.currentTimeMillis() + 3_600_000;
        run(oldStore, set("k", "v0")); // as a read of this store sees it: no expiry
        run(oldStore, set("w", "v0"));
        WarmUpRoute node = node();
        assertEquals("v0", value(run(node, get("k"))));
        assertEquals("v0", value(run(node, get("w"))));
        assertEquals(Item.NEVER, newStore.item("k").expiresAt(), "the read could not tell the expiry");

        long listedAt = node.listingStarts();
        assertTrue(run(node, set("w", "v0")).ok(), "a client sets w, without an expiry, after the listing began");
        assertEquals(Copy.Outcome.PRESENT, node.copy(NS, bytes("k"), expiresAt, listedAt).toCompletableFuture()
                .get(5, TimeUnit.SECONDS).outcome());
        assertEquals(expiresAt, newStore.item("k").expiresAt(), "the listed expiry, on the read's copy");
        assertEquals("v0", text(newStore.item("k")));
        node.copy(NS, bytes("w"), expiresAt, listedAt).toCompletableFuture().get(5, TimeUnit.SECONDS);
        assertEquals(Item.NEVER, newStore.item("w").expiresAt(), "the client's write is left as it wrote it");
        assertEquals(1, counter("backfill_expiry_set"));
        node.copy(NS, bytes("k"), Item.NEVER, -1).toCompletableFuture().get(5, TimeUnit.SECONDS);
        assertEquals(expiresAt, newStore.item("k").expiresAt(), "a key listed without its expiry changes nothing");
    }

    @Test
    void aDeleteFinishingWhileABackfillCarriesAnOldValueDoesNotBringItBack() throws Exception {
        run(oldStore, set("k", "v0"));
        // The backfill's read of the old store (v0) is answered only after a delete has finished on both stores. (A
        // client's read through this node would have answered before the delete began: one key's operations run in
        // the order they came; the backfill's copies are not among them.)
        Gate lateAnswer = Gate.holdingAnswers(oldStore, operation -> operation instanceof Operation.Get);
        WarmUpRoute node = node(newStore, lateAnswer);
        CompletionStage<Copy> copied = node.copy(NS, bytes("k"), Item.NEVER, -1);
        lateAnswer.awaitHeld();
        assertTrue(run(node, delete("k")).ok());
        lateAnswer.open();
        assertEquals(Copy.Outcome.RACED, copied.toCompletableFuture().get(5, TimeUnit.SECONDS).outcome(),
                "the copy saw the delete and was refused");
        assertNull(newStore.item("k"), "the old value was not copied back");
        assertEquals(1, counter("fill_raced"));
    }

    @Test
    void aGetSentRightBehindASetOfItsKeyReadsWhatTheSetStored() throws Exception {
        run(oldStore, set("k", "old"));
        // The set's own store into the new store is held: the get reaching the node after it must not overtake it.
        Gate slowSet = Gate.holdingRequests(newStore, operation -> operation instanceof Operation.Store store
                && new String(store.value(), StandardCharsets.UTF_8).equals("new"));
        WarmUpRoute node = node(slowSet, oldStore);
        CompletableFuture<Result> stored = node.execute(set("k", "new")).toCompletableFuture();
        slowSet.awaitHeld();
        CompletableFuture<Result> read = node.execute(get("k")).toCompletableFuture();
        CompletableFuture<Result> other = node.execute(get("elsewhere")).toCompletableFuture();
        assertEquals(Status.NOT_FOUND, other.get(5, TimeUnit.SECONDS).status(), "another key is not held up");
        assertFalse(read.isDone(), "the get waits for the set before it");
        slowSet.open();
        assertTrue(stored.get(5, TimeUnit.SECONDS).ok());
        assertEquals("new", value(read.get(5, TimeUnit.SECONDS)));
    }

    @Test
    void aDeleteStartingWhileAFillTravelsWaitsForItAndLandsAfterIt() throws Exception {
        run(oldStore, set("k", "v0"));
        Gate slowAdd = Gate.holdingRequests(newStore, operation -> operation instanceof Operation.Store);
        WarmUpRoute node = node(slowAdd, oldStore);
        CompletionStage<Result> read = node.execute(get("k"));
        slowAdd.awaitHeld();
        CompletableFuture<Result> deleted = node.execute(delete("k")).toCompletableFuture();
        assertFalse(deleted.isDone(), "the delete waits for the copy under way");
        slowAdd.open();
        assertTrue(deleted.get(5, TimeUnit.SECONDS).ok());
        // The read began before the delete, so the item it copied is a fair answer; the delete, applied after the
        // copy landed, removed the copy from the new store as well.
        assertEquals("v0", value(read.toCompletableFuture().get(5, TimeUnit.SECONDS)));
        assertNull(newStore.item("k"));
        assertNull(oldStore.item("k"));
        assertEquals(Status.NOT_FOUND, run(node, get("k")).status());
        assertEquals(0, counter("fill_undone"), "the delete, not a take-back, removed the copy");
    }

    @Test
    void aCopyRacingADeleteThroughAnotherGatewayIsTakenBack() throws Exception {
        run(oldStore, set("k", "v0"));
        // Gateway A's copy reaches the new store only after gateway B deleted the key from both stores.
        Gate slowAdd = Gate.holdingRequests(newStore, operation -> operation instanceof Operation.Store);
        WarmUpRoute gatewayA = node(slowAdd, oldStore);
        WarmUpRoute gatewayB = node(newStore, oldStore);
        CompletionStage<Result> read = gatewayA.execute(get("k"));
        slowAdd.awaitHeld();
        assertTrue(run(gatewayB, delete("k")).ok());
        slowAdd.open();
        assertEquals(Status.NOT_FOUND, read.toCompletableFuture().get(5, TimeUnit.SECONDS).status());
        assertNull(newStore.item("k"), "the copy was taken back once the old store no longer held it");
        assertEquals(1, counter("fill_undone"));
    }

    @Test
    void aReadMissingTheNewStoreJustBeforeAWriteMovedTheKeyAnswersTheMovedItem() throws Exception {
        run(oldStore, set("k", "v0"));
        // The read's miss in the new store arrives only after a write through another gateway has moved the key:
        // copied it into the new store, deleted the old store's copy and changed the new one. The key was never
        // absent from both. (Through this gateway the write would wait for the read before it.)
        Gate lateMiss = Gate.holdingAnswers(newStore, operation -> operation instanceof Operation.Get);
        WarmUpRoute node = node(lateMiss, oldStore);
        WarmUpRoute otherGateway = node(newStore, oldStore);
        CompletionStage<Result> read = node.execute(get("k"));
        lateMiss.awaitHeld();
        assertTrue(run(otherGateway, set("k", "v1")).ok());
        assertNull(oldStore.item("k"), "the write deleted the old store's copy");
        lateMiss.open();
        assertEquals("v1", value(read.toCompletableFuture().get(5, TimeUnit.SECONDS)),
                "a miss in both stores is checked against the new store again");
    }

    @Test
    void aWriteBuildingOnACopyStillLandingKeepsTheCopy() throws Exception {
        run(oldStore, set("k", "v0"));
        // The read's copy is in the new store, but its answer arrives only after an append has read the copy there.
        Gate lateAdded = Gate.holdingAnswers(newStore, operation -> operation instanceof Operation.Store);
        WarmUpRoute node = node(lateAdded, oldStore);
        CompletionStage<Result> read = node.execute(get("k"));
        lateAdded.awaitHeld();
        CompletableFuture<Result> appended = node.execute(store(StoreMode.APPEND, "k", "|a", 0)).toCompletableFuture();
        assertFalse(appended.isDone(), "the append waits for the copy under way");
        lateAdded.open();
        assertTrue(appended.get(5, TimeUnit.SECONDS).ok(), "the append applies to the copy it read");
        assertEquals("v0", value(read.toCompletableFuture().get(5, TimeUnit.SECONDS)));
        assertEquals("v0|a", text(newStore.item("k")));
        assertNull(oldStore.item("k"));
        assertEquals(0, counter("fill_undone"));
    }

    @Test
    void aBackfillReadOverlappingADeleteThatEndedBeforeItsCopyCopiesNothing() throws Exception {
        run(oldStore, set("k", "v0"));
        List<Operation> toNew = new CopyOnWriteArrayList<>();
        Route recordedNew = operation -> {
            toNew.add(operation);
            return newStore.execute(operation);
        };
        // The delete has begun (its request to the old store waits) when the read starts; the read's answer from
        // the old store (v0) arrives only after the delete has finished on both stores.
        Gate slowDelete = Gate.holdingRequests(oldStore, operation -> operation instanceof Operation.Delete);
        Gate lateAnswer = Gate.holdingAnswers(slowDelete, operation -> operation instanceof Operation.Get);
        WarmUpRoute node = node(recordedNew, lateAnswer);
        CompletionStage<Result> deleted = node.execute(delete("k"));
        slowDelete.awaitHeld();
        CompletionStage<Copy> copied = node.copy(NS, bytes("k"), Item.NEVER, -1); // the backfill's: a client's read would wait
        lateAnswer.awaitHeld();
        slowDelete.open();
        assertTrue(deleted.toCompletableFuture().get(5, TimeUnit.SECONDS).ok());
        lateAnswer.open();
        assertEquals(Copy.Outcome.RACED, copied.toCompletableFuture().get(5, TimeUnit.SECONDS).outcome());
        assertEquals(Status.NOT_FOUND, run(node, get("k")).status());
        assertTrue(toNew.stream().noneMatch(operation -> operation instanceof Operation.Store),
                "the deleted value never reached the new store, not even for a moment: " + toNew);
        assertEquals(1, counter("fill_raced"));
    }

    @Test
    void aChangeWhoseCopyWasTakenBackWhileItWaitedStartsAgain() throws Exception {
        run(oldStore, set("k", "v0"));
        // The read's copy is in the new store, its answer held until an append has read the copy there and waits;
        // then the old store fails the read that checks the copy, so the copy is taken back.
        Gate lateAdded = Gate.holdingAnswers(newStore, operation -> operation instanceof Operation.Store);
        AtomicInteger oldReads = new AtomicInteger();
        Route flakyOld = operation -> operation instanceof Operation.Get && oldReads.incrementAndGet() == 2
                ? CompletableFuture.completedFuture(Result.failure(Status.TEMPORARY_FAILURE, "blip"))
                : oldStore.execute(operation);
        WarmUpRoute node = node(lateAdded, flakyOld);
        CompletionStage<Result> read = node.execute(get("k"));
        lateAdded.awaitHeld();
        CompletableFuture<Result> appended = node.execute(store(StoreMode.APPEND, "k", "|a", 0)).toCompletableFuture();
        assertFalse(appended.isDone(), "the append waits for the copy under way");
        lateAdded.open();
        assertTrue(appended.get(5, TimeUnit.SECONDS).ok(), "the append warmed the key again and applied to it");
        assertInstanceOf(Result.Value.class, read.toCompletableFuture().get(5, TimeUnit.SECONDS));
        assertEquals("v0|a", text(newStore.item("k")));
        assertNull(oldStore.item("k"));
        assertEquals(1, counter("fill_undone"));
    }

    @Test
    void aScanSeesBothStoresTheNewOneWinningAndAFlushEmptiesBoth() {
        run(oldStore, set("a", "old a"));
        run(oldStore, set("b", "old b"));
        run(newStore, set("b", "new b"));
        run(newStore, set("c", "new c"));
        WarmUpRoute node = node();
        Result.Entries entries = assertInstanceOf(Result.Entries.class, run(node, new Operation.Scan(NS, 10)));
        Map<String, String> seen = new HashMap<>();
        entries.entries().forEach(entry -> seen.put(new String(entry.key(), StandardCharsets.UTF_8),
                text(entry.item())));
        assertEquals(Map.of("a", "old a", "b", "new b", "c", "new c"), seen);
        assertEquals(Status.TOO_LARGE, run(node, new Operation.Scan(NS, 2)).status());
        assertTrue(run(node, new Operation.Flush(NS, 0)).ok());
        assertEquals(0, newStore.size());
        assertEquals(0, oldStore.size());
    }

    @Test
    void withWritesBothTheOldStoreGetsTheNewItemBack() {
        run(oldStore, set("n", "1"));
        WarmUpRoute node = node("writes", "both");
        assertTrue(run(node, set("s", "v")).ok());
        assertTrue(run(node, new Operation.Arithmetic(NS, bytes("n"), true, 2, 0, false, Item.NEVER, 0)).ok());
        assertEquals("v", text(oldStore.item("s")));
        assertEquals("3", text(oldStore.item("n")));
        assertEquals("3", text(newStore.item("n")));
        assertEquals(2, counter("mirrored"));
        assertTrue(run(node, delete("n")).ok());
        assertNull(oldStore.item("n"));
    }

    @Test
    void withWritesBothAStoreKeepingItsExpiryGivesTheOldStoreTheExpiryTheNewOneKept() {
        long later = System.currentTimeMillis() + 3_600_000;
        run(newStore, new Operation.Store(NS, bytes("p"), StoreMode.SET, bytes("v1"), 0, later, 0));
        WarmUpRoute node = node("writes", "both");
        assertTrue(run(node, new Operation.Store(NS, bytes("p"), StoreMode.SET, bytes("v2"), 0, Item.NEVER, 0,
                true)).ok());
        assertEquals(later, newStore.item("p").expiresAt(), "kept by the new store");
        assertEquals("v2", text(oldStore.item("p")));
        assertEquals(later, oldStore.item("p").expiresAt(), "the old store's copy has the expiry kept, not none");
    }

    @Test
    void theBackfillCopiesEveryItemWithoutOverwritingNewerWrites() throws Exception {
        for (int i = 0; i < 50; i++) {
            run(oldStore, set("k" + i, "old" + i));
        }
        run(newStore, set("k0", "newer"));
        WarmUpRoute node = node("backfill", "default", "backfill_rate", "0");
        awaitCounter("backfill_done", 1);
        assertEquals(49, counter("backfill_copied"));
        assertEquals(1, counter("backfill_skipped"));
        assertEquals(0, counter("backfill_failed"));
        assertEquals("newer", text(newStore.item("k0")));
        for (int i = 1; i < 50; i++) {
            assertArrayEquals(bytes("old" + i), newStore.item("k" + i).value());
        }
        node.close();
    }

    @Test
    void closingTheNodeStopsItsBackfill() throws Exception {
        for (int i = 0; i < 100; i++) {
            run(oldStore, set("k" + i, "v"));
        }
        WarmUpRoute node = node("backfill", "default", "backfill_rate", "20", "backfill_concurrency", "1");
        awaitCounter("backfill_copied", 1);
        node.close();
        long copied = counter("backfill_copied");
        Thread.sleep(500);
        assertTrue(counter("backfill_copied") <= copied + 1, "no copy starts after close");
        assertEquals(0, counter("backfill_done"));
    }

    @Test
    void aNamespaceTooLargeForOneScanIsCountedNotCopiedInPart() throws Exception {
        for (int i = 0; i < 10; i++) {
            run(oldStore, set("k" + i, "v"));
        }
        WarmUpRoute node = node("backfill", "default", "backfill_limit", "5");
        awaitCounter("backfill_incomplete", 1);
        assertEquals(1, counter("backfill_namespaces_failed"));
        assertEquals(0, counter("backfill_copied"));
        assertEquals(0, counter("backfill_done"), "a namespace not listed is no backfill done");
        assertTrue(node.status().startsWith("backfill incomplete: namespace default could not be listed"),
                node.status());
        node.close();
    }

    @Test
    void theVerificationReportsAKeyTheNewStoreHoldsOtherwise() throws Exception {
        for (int i = 0; i < 20; i++) {
            run(oldStore, set("k" + i, "v"));
        }
        run(newStore, set("k3", "written to the new store only"));
        WarmUpRoute node = node("backfill", "default", "backfill_verify", "100");
        awaitCounter("backfill_done", 1);
        assertEquals(20, counter("backfill_verify_checked"), "every listed key, as the sample is larger");
        assertEquals(1, counter("backfill_verify_differs"));
        assertEquals(19, counter("backfill_copied"));
        assertEquals("backfill done; 1 of 20 keys compared differ between the stores", node.status());
        node.close();
    }

    @Test
    void settingsThatMakeNoNodeAreRefused() {
        IllegalArgumentException missing = assertThrows(IllegalArgumentException.class, () -> node("new", ""));
        assertTrue(missing.getMessage().contains("routes.move.new"), missing.getMessage());
        IllegalArgumentException same = assertThrows(IllegalArgumentException.class,
                () -> node("new", "stale", "old", "stale"));
        assertTrue(same.getMessage().contains("both name 'stale'"), same.getMessage());
        assertThrows(IllegalArgumentException.class, () -> node("backfill", "bad name!"));
    }

    private void awaitCounter(String name, long atLeast) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (counter(name) < atLeast) {
            assertTrue(System.nanoTime() < deadline, name + " stayed at " + counter(name));
            Thread.sleep(10);
        }
    }

    @Test
    void explainNamesBothStoresNewFirstAndSendsNothing() {
        WarmUpRoute node = node("writes", "both");
        Route.Step read = node.explain(get("k"));
        assertEquals(List.of(newStore, oldStore), read.next());
        assertTrue(read.says().contains("on a miss reads old"), read.says());
        assertTrue(node.explain(set("k", "v")).says().endsWith("copies the result back to old"));
        assertEquals(Status.NOT_FOUND, run(newStore, get("k")).status(), "explaining sends nothing");
    }
}
