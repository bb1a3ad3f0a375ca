package kvgate.plugin.shadow;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiConsumer;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;
import kvgate.spi.Item;
import kvgate.spi.Namespace;
import kvgate.spi.Operation;
import kvgate.spi.Result;
import kvgate.spi.ResultFuture;
import kvgate.spi.Route;
import kvgate.spi.Status;
import kvgate.spi.StoreMode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The node over two stand-in children that record what reaches them and answer as each test tells them. */
class ShadowRouteTest {
    private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
    private final Map<String, LongAdder> counters = new ConcurrentHashMap<>();

    @AfterEach
    void stop() {
        scheduler.shutdownNow();
    }

    /** A child route: every call it gets is one batch in {@link #batches}. */
    private static final class Child implements Route {
        final List<List<Operation>> batches = new CopyOnWriteArrayList<>();
        final Function<Operation, CompletionStage<Result>> answer;

        Child(Function<Operation, CompletionStage<Result>> answer) {
            this.answer = answer;
        }

        @Override
        public CompletionStage<Result> execute(Operation operation) {
            return executeAll(List.of(operation)).get(0);
        }

        @Override
        public List<CompletionStage<Result>> executeAll(List<Operation> operations) {
            batches.add(List.copyOf(operations));
            List<CompletionStage<Result>> results = new ArrayList<>();
            operations.forEach(operation -> results.add(answer.apply(operation)));
            return results;
        }
    }

    private static CompletionStage<Result> hit(Operation operation) {
        return CompletableFuture.completedFuture(new Result.Value(new Item("v".getBytes(StandardCharsets.UTF_8), 0,
                1, 0)));
    }

    /** The node's work after its answers, as the gateway counts it for a reload. */
    private final AtomicInteger background = new AtomicInteger();

    private ShadowRoute node(Child primary, Child shadow, int maxInflight, long timeoutMillis) {
        return new ShadowRoute("s", primary, shadow, MirrorPolicy.of("all", "1", true), maxInflight, timeoutMillis,
                1000, scheduler, name -> counters.computeIfAbsent(name, ignored -> new LongAdder()), work -> {
                    background.incrementAndGet();
                    work.whenComplete((result, error) -> background.decrementAndGet());
                });
    }

    private long count(String name) {
        return counters.get(name).sum();
    }

    private static Operation get(int i) {
        return new Operation.Get(Namespace.DEFAULT, ("k" + i).getBytes(StandardCharsets.UTF_8));
    }

    private void awaitCount(String name, long expected) throws InterruptedException {
        for (int i = 0; i < 500 && count(name) != expected; i++) {
            Thread.sleep(10);
        }
        assertEquals(expected, count(name), name);
    }

    @Test
    void aMirroredRequestIsTheNodesWorkAfterItsAnswerUntilTheShadowAnswersIt() {
        CompletableFuture<Result> late = new CompletableFuture<>();
        Child primary = new Child(ShadowRouteTest::hit);
        Child shadow = new Child(operation -> late);
        ShadowRoute node = node(primary, shadow, 10, 60_000);
        assertTrue(node.execute(get(1)).toCompletableFuture().isDone(), "the primary answered");
        assertEquals(1, background.get(), "the shadow has not: a reload must not close it yet");
        late.complete(Result.failure(Status.NOT_FOUND));
        assertEquals(0, background.get());
        // A CAS write the primary refuses is never sent, and is no work left either.
        Child refusing = new Child(operation -> CompletableFuture.completedFuture(Result.failure(Status.EXISTS)));
        node(refusing, shadow, 10, 60_000).execute(new Operation.Store(Namespace.DEFAULT,
                "k".getBytes(StandardCharsets.UTF_8), StoreMode.SET, new byte[0], 0, 0, 7));
        assertEquals(0, background.get());
    }

    @Test
    void aBurstReachesThePrimaryAsOneBatchAndTheShadowAsAnother() {
        Child primary = new Child(ShadowRouteTest::hit);
        Child shadow = new Child(ShadowRouteTest::hit);
        List<CompletionStage<Result>> answers = node(primary, shadow, 100, 1000)
                .executeAll(List.of(get(1), get(2), get(3)));
        assertEquals(3, answers.size());
        assertEquals(List.of(3), primary.batches.stream().map(List::size).toList());
        assertEquals(List.of(3), shadow.batches.stream().map(List::size).toList());
        assertEquals(3, count("mirrored"));
        assertEquals(3, count("matched"));
        assertEquals(0, count("mismatched"));
    }

    @Test
    void theAnswerIsThePrimarysAndAShadowThatNeverAnswersTimesOut() throws Exception {
        CompletableFuture<Result> never = new CompletableFuture<>();
        Child primary = new Child(ShadowRouteTest::hit);
        Child shadow = new Child(operation -> never);
        ShadowRoute node = node(primary, shadow, 1, 50);
        CompletionStage<Result> answer = node.execute(get(1));
        assertTrue(answer.toCompletableFuture().isDone(), "the answer does not wait for the shadow");
        assertEquals(Status.OK, answer.toCompletableFuture().join().status());
        awaitCount("shadow_failed", 1);
        assertEquals(1, count("mirrored"));
        assertEquals(0, count("matched"));
        // A late answer is not counted a second time, and the one place it held is free again.
        never.complete(Result.failure(Status.NOT_FOUND));
        assertEquals(0, count("mismatched"));
        node.execute(get(2));
        assertEquals(2, count("mirrored"));
        assertEquals(0, count("skipped"));
        assertEquals(1, count("mismatched"), "the next one is compared: a miss in the shadow");
        assertEquals(1, count("shadow_failed"));
    }

    @Test
    void beyondMaxInflightRequestsAreSkippedUntilTheShadowAnswers() throws Exception {
        List<CompletableFuture<Result>> pending = new CopyOnWriteArrayList<>();
        Child shadow = new Child(operation -> {
            CompletableFuture<Result> reply = new CompletableFuture<>();
            pending.add(reply);
            return reply;
        });
        ShadowRoute node = node(new Child(ShadowRouteTest::hit), shadow, 2, 60_000);
        for (int i = 0; i < 5; i++) {
            node.execute(get(i));
        }
        assertEquals(2, count("mirrored"));
        assertEquals(3, count("skipped"));
        pending.get(0).complete(hit(null).toCompletableFuture().join());
        assertEquals(1, count("matched"));
        node.executeAll(List.of(get(5), get(6)));
        assertEquals(3, count("mirrored"), "one place was free");
        assertEquals(4, count("skipped"));
    }

    @Test
    void aRequestPastItsTimeoutStillHoldsItsPlaceUntilTheShadowAnswers() throws Exception {
        CompletableFuture<Result> never = new CompletableFuture<>();
        ShadowRoute node = node(new Child(ShadowRouteTest::hit), new Child(operation -> never), 2, 20);
        node.execute(get(1));
        node.execute(get(2));
        awaitCount("shadow_failed", 2);
        for (int i = 3; i <= 10; i++) {
            node.execute(get(i));
        }
        assertEquals(2, count("mirrored"), "a shadow that stopped answering holds no more than max_inflight");
        assertEquals(8, count("skipped"));
        never.complete(Result.failure(Status.NOT_FOUND));
        node.execute(get(11));
        assertEquals(3, count("mirrored"), "its answers free the places");
    }

    @Test
    void aShadowThatThrowsOrFailsIsCountedAndTheAnswerStands() {
        Child primary = new Child(ShadowRouteTest::hit);
        Child throwing = new Child(operation -> {
            throw new IllegalStateException("broken");
        });
        CompletionStage<Result> answer = node(primary, throwing, 100, 1000).execute(get(1));
        assertEquals(Status.OK, answer.toCompletableFuture().join().status());
        Child failing = new Child(operation -> CompletableFuture.failedFuture(new IllegalStateException("lost")));
        node(primary, failing, 100, 1000).execute(get(2));
        assertEquals(2, count("shadow_failed"));
        assertEquals(2, count("mirrored"));
    }

    @Test
    void aCasWriteReachesTheShadowWithoutItsCasOnlyWhenThePrimaryTookIt() {
        CompletableFuture<Result> stored = new CompletableFuture<>();
        Child primary = new Child(operation -> ((Operation.Store) operation).key()[0] == 'a' ? stored
                : CompletableFuture.completedFuture(Result.failure(Status.EXISTS)));
        Child shadow = new Child(operation -> CompletableFuture.completedFuture(new Result.Stored(3)));
        ShadowRoute node = node(primary, shadow, 100, 1000);
        byte[] value = "v".getBytes(StandardCharsets.UTF_8);
        node.execute(new Operation.Store(Namespace.DEFAULT, "a".getBytes(StandardCharsets.UTF_8), StoreMode.SET,
                value, 0, 0, 41));
        node.execute(new Operation.Store(Namespace.DEFAULT, "b".getBytes(StandardCharsets.UTF_8), StoreMode.SET,
                value, 0, 0, 42));
        assertTrue(shadow.batches.isEmpty(), "nothing is sent before the primary took the write");
        stored.complete(new Result.Stored(50));
        assertEquals(1, shadow.batches.size(), "the write the primary refused never reaches the shadow");
        Operation.Store sent = (Operation.Store) shadow.batches.get(0).get(0);
        assertEquals(0, sent.cas());
        assertSame(value, sent.value());
        assertEquals(1, count("matched"));
        assertEquals(1, count("mirrored"));
    }

    private static final byte[] VALUE = "v".getBytes(StandardCharsets.UTF_8);

    private static Operation casSet(String key, long cas) {
        return new Operation.Store(Namespace.DEFAULT, key.getBytes(StandardCharsets.UTF_8), StoreMode.SET, VALUE, 0,
                0, cas);
    }

    private static Operation delete(String key) {
        return new Operation.Delete(Namespace.DEFAULT, key.getBytes(StandardCharsets.UTF_8), 0);
    }

    /** What reached the child, one line per operation: its kind, key and CAS. */
    private static List<String> seen(Child child) {
        return child.batches.stream().flatMap(List::stream).map(operation -> ShadowRoute.subject(operation)
                + (operation instanceof Operation.Store store ? " cas " + store.cas() : "")).toList();
    }

    /** A primary that holds its answer to each CAS write in {@code held}, by CAS, and answers the rest at once. */
    private static Child primaryHolding(Map<Long, CompletableFuture<Result>> held) {
        return new Child(operation -> {
            if (operation instanceof Operation.Store store && store.cas() != 0) {
                return held.computeIfAbsent(store.cas(), cas -> new CompletableFuture<>());
            }
            return operation instanceof Operation.Delete
                    ? CompletableFuture.completedFuture(new Result.Removed(null)) : hit(operation);
        });
    }

    @Test
    void operationsOfAKeyBehindACasWriteReachTheShadowAfterItAndOtherKeysDoNotWait() {
        Map<Long, CompletableFuture<Result>> held = new ConcurrentHashMap<>();
        Child shadow = new Child(ShadowRouteTest::hit);
        ShadowRoute node = node(primaryHolding(held), shadow, 100, 1000);
        node.execute(casSet("a", 41));
        node.execute(delete("a"));
        node.execute(get(1));
        node.executeAll(List.of(new Operation.Get(Namespace.DEFAULT, "a".getBytes(StandardCharsets.UTF_8)),
                get(2)));
        assertEquals(List.of("get of key \"k1\"", "get of key \"k2\""), seen(shadow),
                "a delete of the key must not overtake the CAS write the primary has not answered");
        held.get(41L).complete(new Result.Stored(50));
        assertEquals(List.of("get of key \"k1\"", "get of key \"k2\"", "store of key \"a\" cas 0",
                "delete of key \"a\"", "get of key \"a\""), seen(shadow));
        assertEquals(5, count("mirrored"));
    }

    @Test
    void aBurstsOperationsBeforeACasWriteReachTheShadowBeforeItEvenWhenThePrimaryAnswersItAtOnce() {
        // The primary answers the CAS write the moment the node starts waiting for it, as another thread could
        // between the write being held and the operations before it in the burst being sent.
        ResultFuture answeredWhileHeld = new ResultFuture() {
            @Override
            public CompletionStage<Result> whenComplete(BiConsumer<? super Result, ? super Throwable> action) {
                complete(new Result.Stored(50));
                return super.whenComplete(action);
            }
        };
        Child primary = new Child(operation -> operation instanceof Operation.Store store && store.cas() != 0
                ? answeredWhileHeld : hit(operation));
        Child shadow = new Child(ShadowRouteTest::hit);
        node(primary, shadow, 100, 1000).executeAll(List.of(
                new Operation.Get(Namespace.DEFAULT, "a".getBytes(StandardCharsets.UTF_8)), casSet("a", 41)));
        assertEquals(List.of("get of key \"a\"", "store of key \"a\" cas 0"), seen(shadow),
                "the shadow gets the key's operations in the burst's order");
    }

    @Test
    void aFlushDropsTheOperationsOfItsNamespaceWaitingBehindACasWriteButADelayedOneDoesNot() {
        Map<Long, CompletableFuture<Result>> held = new ConcurrentHashMap<>();
        Child shadow = new Child(ShadowRouteTest::hit);
        ShadowRoute node = node(primaryHolding(held), shadow, 100, 1000);
        node.execute(casSet("a", 41));
        node.execute(delete("a"));
        node.execute(new Operation.Flush(Namespace.DEFAULT, 0));
        // The primary applies the CAS write and the delete before the flush, so it ends without "a"; the shadow
        // gets the flush alone and ends the same.
        assertEquals(List.of("flush of namespace default"), seen(shadow));
        assertEquals(2, count("skipped"));
        assertEquals(0, background.get(), "the dropped operations freed their places");
        held.get(41L).complete(new Result.Stored(50));
        assertEquals(List.of("flush of namespace default"), seen(shadow), "nothing of them goes later");

        node.execute(casSet("b", 42));
        node.execute(new Operation.Flush(Namespace.DEFAULT, 60_000));
        held.get(42L).complete(new Result.Stored(51));
        assertEquals(List.of("flush of namespace default", "flush of namespace default", "store of key \"b\" cas 0"),
                seen(shadow), "a delayed flush empties both stores after the write: it still goes");
    }

    @Test
    void aLaterCasWriteAnsweredFirstStillWaitsForTheEarlierOne() {
        Map<Long, CompletableFuture<Result>> held = new ConcurrentHashMap<>();
        Child shadow = new Child(ShadowRouteTest::hit);
        ShadowRoute node = node(primaryHolding(held), shadow, 100, 1000);
        node.execute(casSet("a", 41));
        node.execute(casSet("a", 42));
        node.execute(delete("a"));
        held.get(42L).complete(new Result.Stored(60));
        assertTrue(shadow.batches.isEmpty(), "the first CAS write is not answered yet");
        held.get(41L).complete(Result.failure(Status.EXISTS));
        assertEquals(List.of("store of key \"a\" cas 0", "delete of key \"a\""), seen(shadow),
                "the refused write is left out; the taken one and the delete follow in order");
        assertEquals(2, count("mirrored"));
    }

    @Test
    void operationsWaitingBehindACasWriteHoldPlacesUntilTheyAreAnswered() {
        Map<Long, CompletableFuture<Result>> held = new ConcurrentHashMap<>();
        ShadowRoute node = node(primaryHolding(held), new Child(ShadowRouteTest::hit), 2, 1000);
        node.execute(casSet("a", 41));
        node.execute(delete("a"));
        node.execute(get(1));
        assertEquals(1, count("skipped"), "the two waiting hold both places");
        assertEquals(0, count("mirrored"));
        held.get(41L).complete(Result.failure(Status.EXISTS));
        assertEquals(1, count("mirrored"), "the delete went; the refused write freed its place unsent");
        node.execute(get(2));
        node.execute(get(3));
        assertEquals(3, count("mirrored"), "every place is free again");
        assertEquals(1, count("skipped"));
    }

    private static Operation set(String key) {
        return casSet(key, 0);
    }

    private static Operation append(String key) {
        return new Operation.Store(Namespace.DEFAULT, key.getBytes(StandardCharsets.UTF_8), StoreMode.APPEND, VALUE,
                0, 0, 0);
    }

    private static Operation read(String key) {
        return new Operation.Get(Namespace.DEFAULT, key.getBytes(StandardCharsets.UTF_8));
    }

    /** A store that has nothing: every read misses, every write is taken. */
    private static CompletionStage<Result> empty(Operation operation) {
        return CompletableFuture.completedFuture(operation instanceof Operation.Get ? Result.failure(Status.NOT_FOUND)
                : operation instanceof Operation.Delete ? new Result.Removed(null) : new Result.Stored(1));
    }

    /** A store that has every key: every read hits, every write is taken. */
    private static CompletionStage<Result> full(Operation operation) {
        return operation instanceof Operation.Get ? hit(operation) : empty(operation);
    }

    @Test
    void aWriteSkippedAtMaxInflightLeavesItsKeyBehindUntilAMatchedSetLevelsIt() {
        CompletableFuture<Result> first = new CompletableFuture<>();
        Child shadow = new Child(operation -> ((Operation.KeyOperation) operation).key()[0] == 'x' ? first
                : empty(operation));
        ShadowRoute node = node(new Child(ShadowRouteTest::full), shadow, 1, 60_000);
        node.execute(set("x"));
        node.execute(set("k"));
        assertEquals(1, count("skipped"));
        first.complete(new Result.Stored(1));
        node.execute(read("k"));
        assertEquals(1, count("behind"), "the shadow misses the write it never got");
        assertEquals(0, count("mismatched"));
        node.execute(read("j"));
        assertEquals(1, count("mismatched"), "a key nothing was skipped of differs as the shadow's own");
        node.execute(set("k"));
        node.execute(read("k"));
        assertEquals(2, count("mismatched"), "a matched set left the key level, so it differs as the shadow's own");
        assertEquals(1, count("behind"));
        assertEquals(5, count("mirrored"), "all but the skipped set");
        assertEquals(count("mirrored"), count("matched") + count("mismatched") + count("behind"));
    }

    @Test
    void aFailedWriteLeavesItsKeyBehindAndOnlyAWriteReplacingTheItemLevelsIt() {
        Child primary = new Child(operation -> operation instanceof Operation.Store store && store.cas() != 0
                ? CompletableFuture.completedFuture(Result.failure(Status.TEMPORARY_FAILURE)) : full(operation));
        Child shadow = new Child(operation -> operation instanceof Operation.Store store && store.key()[0] == 'f'
                && store.mode() == StoreMode.SET
                ? CompletableFuture.completedFuture(Result.failure(Status.BACKEND_ERROR)) : empty(operation));
        ShadowRoute node = node(primary, shadow, 100, 1000);
        node.execute(set("f"));
        assertEquals(1, count("shadow_failed"));
        node.execute(casSet("c", 5));
        assertEquals(1, count("mirrored"), "a CAS write the primary failed is not sent");
        node.execute(read("f"));
        node.execute(read("c"));
        assertEquals(2, count("behind"), "whether the primary applied the CAS write is unknown");
        node.execute(append("f"));
        node.execute(read("f"));
        assertEquals(3, count("behind"), "an append leaves what was there before");
        node.execute(delete("f"));
        node.execute(read("f"));
        assertEquals(3, count("behind"));
        assertEquals(1, count("mismatched"), "a matched delete left the key level");
    }

    @Test
    void aMismatchIsCountedAndDescribedWithItsKeyAndBothOutcomes() {
        Child primary = new Child(ShadowRouteTest::hit);
        Child shadow = new Child(operation -> CompletableFuture.completedFuture(Result.failure(Status.NOT_FOUND)));
        node(primary, shadow, 100, 1000).execute(get(7));
        assertEquals(1, count("mismatched"));
        assertEquals("get of key \"k7\"", ShadowRoute.subject(get(7)));
        assertEquals("OK, flags 0, 1 bytes \"v\"", ShadowRoute.describe(hit(null).toCompletableFuture().join()));
        assertEquals("NOT_FOUND", ShadowRoute.describe(Result.failure(Status.NOT_FOUND)));
        assertEquals("\"a\\x00\\x22\"...", ShadowRoute.printable(new byte[] {'a', 0, '"', 'b'}, 3));
    }

    @Test
    void explainNamesTheShadowOnlyForOperationsThatAreMirrored() {
        Child primary = new Child(ShadowRouteTest::hit);
        Child shadow = new Child(ShadowRouteTest::hit);
        ShadowRoute reads = new ShadowRoute("s", primary, shadow, MirrorPolicy.of("reads", "1", false), 10, 1000,
                1000, scheduler, name -> counters.computeIfAbsent(name, ignored -> new LongAdder()), work -> {
                });
        assertEquals(List.of(primary, shadow), reads.explain(get(1)).next());
        Operation set = new Operation.Store(Namespace.DEFAULT, "k".getBytes(StandardCharsets.UTF_8), StoreMode.SET,
                new byte[0], 0, 0, 0);
        assertEquals(List.of(primary), reads.explain(set).next());
        assertTrue(primary.batches.isEmpty() && shadow.batches.isEmpty(), "explaining sends nothing");
    }
}
