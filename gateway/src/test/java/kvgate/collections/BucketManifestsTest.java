package kvgate.collections;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import kvgate.dispatch.Dispatcher;
import kvgate.metrics.GatewayMetrics;
import kvgate.route.BackendRoute;
import kvgate.spi.Backend;
import kvgate.spi.Capability;
import kvgate.spi.Item;
import kvgate.spi.ItemTransition;
import kvgate.spi.Namespace;
import kvgate.spi.Operation;
import kvgate.spi.Result;
import kvgate.spi.Route;
import kvgate.spi.Status;
import kvgate.spi.StoreMode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Manifests kept in a backend: reading, setting with compare-and-swap, refreshing, and purging dropped collections. */
class BucketManifestsTest {
    private static final String BUCKET = "default";
    private static final long WAIT_SECONDS = 5;

    private final ScheduledExecutorService scheduler = Executors.newScheduledThreadPool(2);
    private final List<BucketManifests> opened = new ArrayList<>();

    @AfterEach
    void stop() {
        opened.forEach(BucketManifests::close);
        scheduler.shutdownNow();
    }

    /** A store held while the test decides when it takes effect. */
    private record HeldStore(Operation.Store store, CompletableFuture<Void> release) {
    }

    /** Items in maps, one per namespace, with memcached semantics from {@link ItemTransition}. */
    private static final class MapBackend implements Backend {
        private final Map<Namespace, Map<String, Item>> items = new ConcurrentHashMap<>();
        private final AtomicLong cas = new AtomicLong();
        final List<Operation> operations = new CopyOnWriteArrayList<>();
        final List<HeldStore> held = new CopyOnWriteArrayList<>();
        volatile boolean holdStores;
        /** Gets read the map when they arrive and answer when released: a read that the network held up. */
        volatile boolean holdGets;
        final List<CompletableFuture<Void>> heldGets = new CopyOnWriteArrayList<>();
        volatile Status failGets;
        volatile Status failStores;

        @Override
        public Set<Capability> capabilities() {
            return EnumSet.of(Capability.SHARED);
        }

        @Override
        public CompletionStage<Result> execute(Operation operation) {
            operations.add(operation);
            if (operation instanceof Operation.Flush flush) {
                items.remove(flush.namespace());
                return CompletableFuture.completedFuture(Result.DONE);
            }
            if (operation instanceof Operation.Get && failGets != null) {
                return CompletableFuture.completedFuture(Result.failure(failGets, "get refused by the test"));
            }
            if (operation instanceof Operation.Get get && holdGets) {
                Result now = apply(get);
                CompletableFuture<Void> release = new CompletableFuture<>();
                heldGets.add(release);
                return release.thenApply(ignored -> now);
            }
            if (operation instanceof Operation.Store store) {
                if (failStores != null) {
                    return CompletableFuture.completedFuture(Result.failure(failStores, "store refused by the test"));
                }
                if (holdStores) {
                    CompletableFuture<Void> release = new CompletableFuture<>();
                    held.add(new HeldStore(store, release));
                    return release.thenApply(ignored -> apply(store));
                }
            }
            return CompletableFuture.completedFuture(apply((Operation.KeyOperation) operation));
        }

        private synchronized Result apply(Operation.KeyOperation operation) {
            Map<String, Item> namespace = items.computeIfAbsent(operation.namespace(), n -> new ConcurrentHashMap<>());
            String key = new String(operation.key(), StandardCharsets.ISO_8859_1);
            ItemTransition transition = ItemTransition.apply(operation, namespace.get(key), System.currentTimeMillis(),
                    cas::incrementAndGet, 1 << 20);
            switch (transition.effect()) {
                case PUT -> namespace.put(key, transition.next());
                case REMOVE -> namespace.remove(key);
                case NONE -> {
                }
            }
            return transition.result();
        }

        Item item(Namespace namespace, String key) {
            Map<String, Item> map = items.get(namespace);
            return map == null ? null : map.get(key);
        }

        void put(Namespace namespace, String key, String value) {
            apply(new Operation.Store(namespace, key.getBytes(StandardCharsets.ISO_8859_1),
                    StoreMode.SET, value.getBytes(StandardCharsets.UTF_8), 0, Item.NEVER, 0));
        }

        long stores() {
            return operations.stream().filter(Operation.Store.class::isInstance).count();
        }

        List<Namespace> flushed() {
            return operations.stream().filter(Operation.Flush.class::isInstance).map(Operation::namespace).toList();
        }

        @Override
        public void close() {
        }
    }

    /**
     * One gateway's way to a shared backend, recording the flushes that gateway sends, so two gateways on one backend
     * can be told apart.
     */
    private static final class FlushRecorder implements Route {
        final List<Namespace> flushed = new CopyOnWriteArrayList<>();
        private final Backend backend;

        FlushRecorder(Backend backend) {
            this.backend = backend;
        }

        @Override
        public CompletionStage<Result> execute(Operation operation) {
            if (operation instanceof Operation.Flush flush) {
                flushed.add(flush.namespace());
            }
            return backend.execute(operation);
        }
    }

    private BucketManifests manifests(Backend backend, long refreshBoundMillis) {
        return manifests(BackendRoute.alone(backend), refreshBoundMillis, new ManifestLimits(100, 1000));
    }

    private BucketManifests manifests(Route route, long refreshBoundMillis, ManifestLimits limits) {
        Dispatcher dispatcher = new Dispatcher(route, null, new GatewayMetrics(), scheduler);
        BucketManifests manifests = new BucketManifests(Set.of(BUCKET, "travel"), dispatcher, limits,
                refreshBoundMillis, scheduler);
        opened.add(manifests);
        return manifests;
    }

    private BucketManifests started(Backend backend, long refreshBoundMillis) {
        BucketManifests manifests = manifests(backend, refreshBoundMillis);
        manifests.start(WAIT_SECONDS * 1000);
        return manifests;
    }

    /** A manifest with the default scope and collection and the given collections (name, hex id) besides. */
    private static byte[] manifest(String uid, String... namesAndIds) {
        StringBuilder json = new StringBuilder("{\"uid\":\"" + uid + "\",\"scopes\":[{\"name\":\"_default\","
                + "\"uid\":\"0\",\"collections\":[{\"name\":\"_default\",\"uid\":\"0\"}");
        for (int i = 0; i < namesAndIds.length; i += 2) {
            json.append(",{\"name\":\"").append(namesAndIds[i]).append("\",\"uid\":\"").append(namesAndIds[i + 1])
                    .append("\"}");
        }
        return json.append("]}]}").toString().getBytes(StandardCharsets.UTF_8);
    }

    private static CollectionsManifest done(CompletionStage<CollectionsManifest> stage) throws Exception {
        return stage.toCompletableFuture().get(WAIT_SECONDS, TimeUnit.SECONDS);
    }

    private static ManifestRejected.Reason refusal(CompletionStage<CollectionsManifest> stage) {
        ExecutionException failure = assertThrows(ExecutionException.class,
                () -> stage.toCompletableFuture().get(WAIT_SECONDS, TimeUnit.SECONDS));
        ManifestRejected rejected = BucketManifests.rejection(failure);
        assertNotNull(rejected, () -> "not a rejection: " + failure.getCause());
        return rejected.reason();
    }

    private static void await(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                fail("timed out waiting for " + what);
            }
            Thread.sleep(10);
        }
    }

    private static String text(byte[] json) {
        return new String(json, StandardCharsets.UTF_8);
    }

    // --- reading -------------------------------------------------------------------------------------------------

    @Test
    void beforeAnySetTheCurrentManifestIsTheInitialOne() {
        BucketManifests manifests = started(new MapBackend(), 10_000);
        CollectionsManifest current = manifests.current(BUCKET);
        assertNotNull(current);
        assertEquals(0, current.uid());
        assertEquals(CollectionsManifest.initial(BUCKET).json(), current.json());
        assertEquals(Namespace.DEFAULT, current.collection(0).namespace());
        assertEquals(new Namespace("travel"), manifests.current("travel").collection(0).namespace());
    }

    @Test
    void anUnconfiguredBucketHasNoManifest() {
        BucketManifests manifests = started(new MapBackend(), 10_000);
        assertTrue(manifests.hasBucket(BUCKET));
        assertFalse(manifests.hasBucket("beer"));
        assertNull(manifests.current("beer"));
    }

    @Test
    void beforeStartNoManifestIsInForce() {
        BucketManifests manifests = manifests(new MapBackend(), 10_000);
        assertNull(manifests.current(BUCKET));
    }

    @Test
    void aManifestUnreadableAtStartIsReadOnALaterRefresh() throws Exception {
        MapBackend backend = new MapBackend();
        backend.failGets = Status.TEMPORARY_FAILURE;
        BucketManifests manifests = manifests(backend, 100);
        manifests.start(200);
        assertNull(manifests.current(BUCKET));
        backend.failGets = null;
        await("the manifest to be read", () -> manifests.current(BUCKET) != null);
        assertEquals(0, manifests.current(BUCKET).uid());
    }

    // --- setting -------------------------------------------------------------------------------------------------

    @Test
    void aRefreshThatReadTheManifestBeforeASetCannotPutTheOlderOneBack() throws Exception {
        MapBackend backend = new MapBackend();
        BucketManifests manifests = started(backend, 100);
        backend.holdGets = true;
        await("a refresh to read the manifest", () -> !backend.heldGets.isEmpty());
        backend.holdGets = false;
        CollectionsManifest set = done(manifests.set(BUCKET, manifest("a2", "brewery", "8")));
        assertSame(set, manifests.current(BUCKET));
        // The refresh held up read the manifest before the set (uid 0); it ends now, after it.
        // Completing a held read runs the refresh's end at once, on this thread.
        backend.heldGets.forEach(release -> release.complete(null));
        assertEquals(0xa2, manifests.current(BUCKET).uid(), "right after the late refresh ended");
        Thread.sleep(200);
        assertEquals(0xa2, manifests.current(BUCKET).uid(), "after the refreshes that followed");
        assertNotNull(manifests.current(BUCKET).collection(8));
    }

    @Test
    void aSetManifestIsCurrentAtOnce() throws Exception {
        BucketManifests manifests = started(new MapBackend(), 10_000);
        byte[] json = manifest("a2", "brewery", "1c");
        CollectionsManifest set = done(manifests.set(BUCKET, json));
        assertEquals(0xa2, set.uid());
        assertSame(set, manifests.current(BUCKET));
        assertEquals(text(json), manifests.current(BUCKET).json());
        assertEquals(CollectionsManifest.namespaceOf(BUCKET, 0x1c, 0xa2), set.collection(0x1c).namespace());
        assertEquals(Namespace.DEFAULT, set.collection(0).namespace(), "the default collection keeps its items");
        assertEquals(0, manifests.current("travel").uid(), "another bucket is not affected");
    }

    @Test
    void aSetManifestIsStoredAndReadBackByAnotherInstance() throws Exception {
        MapBackend backend = new MapBackend();
        BucketManifests first = started(backend, 10_000);
        byte[] json = manifest("a2", "brewery", "1c");
        done(first.set(BUCKET, json));
        assertNotNull(backend.item(BucketManifests.STORE, BUCKET));

        BucketManifests second = started(backend, 10_000);
        CollectionsManifest read = second.current(BUCKET);
        assertNotNull(read);
        assertEquals(0xa2, read.uid());
        assertEquals(text(json), read.json());
        assertEquals(first.current(BUCKET).collection(0x1c), read.collection(0x1c));
    }

    @Test
    void aKeptCollectionKeepsTheNamespaceOfTheManifestThatDefinedIt() throws Exception {
        MapBackend backend = new MapBackend();
        BucketManifests first = started(backend, 10_000);
        done(first.set(BUCKET, manifest("1", "c", "8")));
        CollectionsManifest second = done(first.set(BUCKET, manifest("2", "c", "8", "d", "9")));
        assertEquals(CollectionsManifest.namespaceOf(BUCKET, 8, 1), second.collection(8).namespace());
        assertEquals(CollectionsManifest.namespaceOf(BUCKET, 9, 2), second.collection(9).namespace());

        // The namespaces depend on the history, which a fresh reader learns from the store.
        CollectionsManifest read = started(backend, 10_000).current(BUCKET);
        assertEquals(CollectionsManifest.namespaceOf(BUCKET, 8, 1), read.collection(8).namespace());
        assertEquals(CollectionsManifest.namespaceOf(BUCKET, 9, 2), read.collection(9).namespace());
    }

    @Test
    void aCollectionDefinedAgainAfterItWasDroppedGetsANewNamespace() throws Exception {
        BucketManifests manifests = started(new MapBackend(), 10_000);
        CollectionsManifest one = done(manifests.set(BUCKET, manifest("1", "c", "8")));
        done(manifests.set(BUCKET, manifest("2")));
        CollectionsManifest three = done(manifests.set(BUCKET, manifest("3", "c", "8")));
        assertNotEquals(one.collection(8).namespace(), three.collection(8).namespace());
    }

    @Test
    void lowerUidIsUidBehind() throws Exception {
        MapBackend backend = new MapBackend();
        BucketManifests manifests = started(backend, 10_000);
        done(manifests.set(BUCKET, manifest("5")));
        assertEquals(ManifestRejected.Reason.UID_BEHIND, refusal(manifests.set(BUCKET, manifest("3", "c", "8"))));
        assertEquals(5, manifests.current(BUCKET).uid());
        assertEquals(1, backend.stores());
    }

    @Test
    void aUidOfTwoToTheSixtyThreeOrMoreIsLaterThanAnyBelowIt() throws Exception {
        BucketManifests manifests = started(new MapBackend(), 10_000);
        done(manifests.set(BUCKET, manifest("1")));
        done(manifests.set(BUCKET, manifest("8000000000000000", "c", "8")));
        assertEquals("8000000000000000", Long.toUnsignedString(manifests.current(BUCKET).uid(), 16),
                "in force, as the store holds it");
        assertEquals(8L, manifests.current(BUCKET).collection(8).id());
        assertEquals(ManifestRejected.Reason.UID_BEHIND, refusal(manifests.set(BUCKET, manifest("9"))));
        done(manifests.set(BUCKET, manifest("ffffffffffffffff", "c", "8", "d", "9")));
        assertEquals(-1L, manifests.current(BUCKET).uid());
    }

    @Test
    void aStoredManifestThatWentLetsNoLowerUidThroughAndTheSameIsStoredAgain() throws Exception {
        MapBackend backend = new MapBackend();
        BucketManifests manifests = started(backend, 10_000);
        done(manifests.set(BUCKET, manifest("5", "c", "8")));
        backend.items.clear(); // the store evicted the stored manifest
        assertEquals(ManifestRejected.Reason.UID_BEHIND, refusal(manifests.set(BUCKET, manifest("3"))));
        assertEquals(5, manifests.current(BUCKET).uid());
        long stores = backend.stores();
        CollectionsManifest again = done(manifests.set(BUCKET, manifest("5", "c", "8")));
        assertEquals(5, again.uid());
        assertEquals(stores + 1, backend.stores(), "the manifest in force is written back to the store");
        assertEquals(again.collection(8).namespace(), manifests.current(BUCKET).collection(8).namespace());
    }

    @Test
    void anInvalidManifestIsRefusedAndNothingIsStored() throws Exception {
        MapBackend backend = new MapBackend();
        BucketManifests manifests = started(backend, 10_000);
        assertEquals(ManifestRejected.Reason.INVALID, refusal(manifests.set(BUCKET, manifest("1", "$c", "8"))));
        assertEquals(ManifestRejected.Reason.INVALID,
                refusal(manifests.set(BUCKET, "{".getBytes(StandardCharsets.UTF_8))));
        assertEquals(0, backend.stores());
        assertEquals(0, manifests.current(BUCKET).uid());
        done(manifests.set(BUCKET, manifest("1", "c", "8")));
    }

    @Test
    void theConfiguredLimitsApply() throws Exception {
        BucketManifests manifests = manifests(BackendRoute.alone(new MapBackend()), 10_000, new ManifestLimits(1, 2));
        manifests.start(WAIT_SECONDS * 1000);
        assertEquals(ManifestRejected.Reason.INVALID,
                refusal(manifests.set(BUCKET, manifest("1", "c", "8", "d", "9"))));
        assertEquals(1, done(manifests.set(BUCKET, manifest("1", "c", "8"))).uid());
    }

    @Test
    void renamingAKeptCollectionCannotApply() throws Exception {
        BucketManifests manifests = started(new MapBackend(), 10_000);
        done(manifests.set(BUCKET, manifest("1", "c", "8")));
        assertEquals(ManifestRejected.Reason.CANNOT_APPLY, refusal(manifests.set(BUCKET, manifest("2", "d", "8"))));
        assertEquals(ManifestRejected.Reason.CANNOT_APPLY, refusal(manifests.set(BUCKET, manifest("1", "d", "9"))));
        assertEquals(1, manifests.current(BUCKET).uid());
    }

    @Test
    void settingTheIdenticalManifestAgainSucceedsWithoutAStore() throws Exception {
        MapBackend backend = new MapBackend();
        BucketManifests manifests = started(backend, 10_000);
        byte[] json = manifest("7", "c", "8");
        CollectionsManifest set = done(manifests.set(BUCKET, json));
        assertEquals(1, backend.stores());
        CollectionsManifest again = done(manifests.set(BUCKET, json));
        assertEquals(7, again.uid());
        assertEquals(set.collection(8), again.collection(8));
        assertEquals(1, backend.stores());
        assertEquals(7, manifests.current(BUCKET).uid());
    }

    @Test
    void settingTheInitialDefinitionWithUidZeroSucceedsWithoutAStore() throws Exception {
        MapBackend backend = new MapBackend();
        BucketManifests manifests = started(backend, 10_000);
        CollectionsManifest same = done(manifests.set(BUCKET,
                CollectionsManifest.initial(BUCKET).json().getBytes(StandardCharsets.UTF_8)));
        assertEquals(0, same.uid());
        assertEquals(0, backend.stores());
    }

    @Test
    void settingTheManifestAnotherGatewaySetMakesItCurrentHereAtOnce() throws Exception {
        MapBackend backend = new MapBackend();
        BucketManifests a = started(backend, 60_000);
        BucketManifests b = started(backend, 60_000);
        byte[] json = manifest("5", "c", "8");
        done(a.set(BUCKET, json));
        assertEquals(0, b.current(BUCKET).uid(), "no refresh within the test");

        // B's client sets the same manifest: it succeeds, so it is in force on B at once.
        CollectionsManifest applied = done(b.set(BUCKET, json));
        assertEquals(5, applied.uid());
        assertEquals(1, backend.stores());
        assertNotNull(b.current(BUCKET));
        assertEquals(5, b.current(BUCKET).uid());
        assertNotNull(b.current(BUCKET).collection(8));
    }

    // --- concurrent updates --------------------------------------------------------------------------------------

    @Test
    void aSecondUpdateWhileOneIsUnderWayIsAConcurrentUpdate() throws Exception {
        MapBackend backend = new MapBackend();
        BucketManifests manifests = started(backend, 10_000);
        backend.holdStores = true;
        CompletionStage<CollectionsManifest> first = manifests.set(BUCKET, manifest("1", "c", "8"));
        await("the first store to reach the backend", () -> backend.held.size() == 1);
        assertFalse(first.toCompletableFuture().isDone());

        assertEquals(ManifestRejected.Reason.CONCURRENT_UPDATE, refusal(manifests.set(BUCKET, manifest("2"))));
        // Another bucket is not held up.
        backend.holdStores = false;
        assertEquals(3, done(manifests.set("travel", manifest("3"))).uid());

        backend.held.get(0).release().complete(null);
        assertEquals(1, done(first).uid());
        assertEquals(1, manifests.current(BUCKET).uid());
        // Once the first update is over, the next may run.
        assertEquals(2, done(manifests.set(BUCKET, manifest("2"))).uid());
    }

    @Test
    void aRefusedUpdateEndsTheUpdateUnderWay() throws Exception {
        BucketManifests manifests = started(new MapBackend(), 10_000);
        assertEquals(ManifestRejected.Reason.INVALID, refusal(manifests.set(BUCKET, manifest("x"))));
        assertEquals(1, done(manifests.set(BUCKET, manifest("1"))).uid());
    }

    @Test
    void twoGatewaysRacingOverTheFirstManifestOnlyOneWins() throws Exception {
        MapBackend backend = new MapBackend();
        BucketManifests a = started(backend, 10_000);
        BucketManifests b = started(backend, 10_000);
        backend.holdStores = true;
        CompletionStage<CollectionsManifest> fromA = a.set(BUCKET, manifest("1", "a", "8"));
        await("a's store", () -> backend.held.size() == 1);
        CompletionStage<CollectionsManifest> fromB = b.set(BUCKET, manifest("2", "b", "9"));
        await("b's store", () -> backend.held.size() == 2);

        backend.held.get(1).release().complete(null);
        assertEquals(2, done(fromB).uid());
        backend.held.get(0).release().complete(null);
        assertEquals(ManifestRejected.Reason.CONCURRENT_UPDATE, refusal(fromA));

        assertEquals(2, started(backend, 10_000).current(BUCKET).uid());
        assertEquals(2, b.current(BUCKET).uid());
    }

    @Test
    void twoGatewaysRacingOverAStoredManifestTheLaterWriterGetsAConcurrentUpdate() throws Exception {
        MapBackend backend = new MapBackend();
        BucketManifests a = started(backend, 10_000);
        BucketManifests b = started(backend, 10_000);
        done(a.set(BUCKET, manifest("1", "c", "8")));

        backend.holdStores = true;
        // A reads the stored manifest and its CAS ...
        CompletionStage<CollectionsManifest> fromA = a.set(BUCKET, manifest("2", "c", "8", "d", "9"));
        await("a's store", () -> backend.held.size() == 1);
        // ... B reads the same and writes first ...
        CompletionStage<CollectionsManifest> fromB = b.set(BUCKET, manifest("3", "c", "8", "e", "a"));
        await("b's store", () -> backend.held.size() == 2);
        long storedCas = backend.item(BucketManifests.STORE, BUCKET).cas();
        assertEquals(storedCas, backend.held.get(0).store().cas(), "a compares with the CAS it read");
        backend.held.get(1).release().complete(null);
        assertEquals(3, done(fromB).uid());
        // ... so A's compare-and-swap finds another CAS.
        backend.held.get(0).release().complete(null);
        assertEquals(ManifestRejected.Reason.CONCURRENT_UPDATE, refusal(fromA));

        CollectionsManifest stored = started(backend, 10_000).current(BUCKET);
        assertEquals(3, stored.uid());
        assertNull(stored.collection(9));
        assertNotNull(stored.collection(0xa));
        assertEquals(1, a.current(BUCKET).uid(), "a's refused manifest is not in force");
    }

    @Test
    void aManifestDeletedDuringAnUpdateIsAConcurrentUpdate() throws Exception {
        MapBackend backend = new MapBackend();
        BucketManifests manifests = started(backend, 10_000);
        done(manifests.set(BUCKET, manifest("1")));
        backend.holdStores = true;
        CompletionStage<CollectionsManifest> update = manifests.set(BUCKET, manifest("2"));
        await("the store", () -> backend.held.size() == 1);
        backend.execute(new Operation.Delete(BucketManifests.STORE, BUCKET.getBytes(StandardCharsets.UTF_8), 0));
        backend.held.get(0).release().complete(null);
        assertEquals(ManifestRejected.Reason.CONCURRENT_UPDATE, refusal(update));
    }

    // --- backend failures ----------------------------------------------------------------------------------------

    @Test
    void aFailedStoreIsStoreFailed() throws Exception {
        MapBackend backend = new MapBackend();
        BucketManifests manifests = started(backend, 10_000);
        backend.failStores = Status.BACKEND_ERROR;
        assertEquals(ManifestRejected.Reason.STORE_FAILED, refusal(manifests.set(BUCKET, manifest("1"))));
        assertEquals(0, manifests.current(BUCKET).uid());
        backend.failStores = null;
        assertEquals(1, done(manifests.set(BUCKET, manifest("1"))).uid());
    }

    @Test
    void aFailedReadIsStoreFailed() throws Exception {
        MapBackend backend = new MapBackend();
        BucketManifests manifests = started(backend, 10_000);
        backend.failGets = Status.TEMPORARY_FAILURE;
        assertEquals(ManifestRejected.Reason.STORE_FAILED, refusal(manifests.set(BUCKET, manifest("1"))));
        assertEquals(0, backend.stores());
    }

    @Test
    void anUnreadableStoredManifestIsStoreFailedNotInvalid() throws Exception {
        MapBackend backend = new MapBackend();
        BucketManifests manifests = started(backend, 60_000);
        // A stored record whose manifest breaks the format: the client's manifest is not at fault.
        backend.put(BucketManifests.STORE, BUCKET, "{\"manifest\":\"{\\\"uid\\\":\\\"1\\\"}\",\"namespaces\":{}}");
        assertEquals(ManifestRejected.Reason.STORE_FAILED, refusal(manifests.set(BUCKET, manifest("2", "c", "8"))));
    }

    @Test
    void aStoredItemThatIsNotJsonIsStoreFailed() throws Exception {
        MapBackend backend = new MapBackend();
        BucketManifests manifests = started(backend, 60_000);
        backend.put(BucketManifests.STORE, BUCKET, "not json");
        assertEquals(ManifestRejected.Reason.STORE_FAILED, refusal(manifests.set(BUCKET, manifest("2", "c", "8"))));
    }

    @Test
    void rejectionFindsTheRejectionInsideWrappers() {
        ManifestRejected rejected = new ManifestRejected(ManifestRejected.Reason.UID_BEHIND, "behind");
        assertSame(rejected, BucketManifests.rejection(rejected));
        assertSame(rejected, BucketManifests.rejection(new CompletionException(rejected)));
        assertSame(rejected, BucketManifests.rejection(
                new ExecutionException(new CompletionException(new IllegalStateException(rejected)))));
        assertNull(BucketManifests.rejection(new CompletionException(new IllegalStateException("other"))));
        assertNull(BucketManifests.rejection(null));
    }

    // --- refreshing and purging ----------------------------------------------------------------------------------

    @Test
    void droppedCollectionsAreFlushedAfterTheRefreshBound() throws Exception {
        long bound = 200;
        MapBackend backend = new MapBackend();
        BucketManifests manifests = started(backend, bound);
        CollectionsManifest before = done(manifests.set(BUCKET, manifest("1", "c", "8", "d", "9")));
        Namespace dropped = before.collection(8).namespace();
        backend.put(dropped, "k", "v");
        backend.put(before.collection(9).namespace(), "k", "v");

        long start = System.nanoTime();
        done(manifests.set(BUCKET, manifest("2", "d", "9")));
        await("the flush of the dropped collection", () -> backend.flushed().contains(dropped));
        long elapsedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertTrue(elapsedMillis >= bound, "flushed after " + elapsedMillis + " ms, before the refresh bound");

        assertNull(backend.item(dropped, "k"));
        assertNotNull(backend.item(before.collection(9).namespace(), "k"), "a kept collection keeps its items");
        assertEquals(Set.of(dropped), Set.copyOf(backend.flushed()));
    }

    @Test
    void droppingTheDefaultCollectionFlushesTheBucketsOwnNamespace() throws Exception {
        MapBackend backend = new MapBackend();
        BucketManifests manifests = started(backend, 50);
        done(manifests.set(BUCKET, "{\"uid\":\"1\",\"scopes\":[{\"name\":\"_default\",\"uid\":\"0\"}]}"
                .getBytes(StandardCharsets.UTF_8)));
        await("the flush of the default collection", () -> backend.flushed().contains(Namespace.DEFAULT));
    }

    @Test
    void aManifestSetThroughOneGatewayIsSeenByAnotherWithinTheRefreshBound() throws Exception {
        MapBackend backend = new MapBackend();
        BucketManifests a = started(backend, 100);
        BucketManifests b = started(backend, 100);
        assertEquals(0, b.current(BUCKET).uid());

        byte[] json = manifest("a2", "brewery", "1c");
        done(a.set(BUCKET, json));
        await("b to see the new manifest", () -> b.current(BUCKET).uid() == 0xa2);
        assertEquals(text(json), b.current(BUCKET).json());
        assertEquals(a.current(BUCKET).collection(0x1c).namespace(), b.current(BUCKET).collection(0x1c).namespace());
    }

    @Test
    void aManifestTheBackendLostIsWrittenBackByTheNextRefreshAndReadByAGatewayStartedAfter() throws Exception {
        MapBackend backend = new MapBackend();
        BucketManifests a = started(backend, 100);
        CollectionsManifest set = done(a.set(BUCKET, manifest("5", "c", "8")));
        backend.execute(new Operation.Delete(BucketManifests.STORE, BUCKET.getBytes(StandardCharsets.UTF_8), 0));
        await("the manifest written back", () -> backend.item(BucketManifests.STORE, BUCKET) != null);
        assertEquals(5, a.current(BUCKET).uid(), "still in force here");

        BucketManifests b = started(backend, 100);
        assertEquals(5, b.current(BUCKET).uid());
        assertEquals(set.collection(8).namespace(), b.current(BUCKET).collection(8).namespace());
        assertEquals(ManifestRejected.Reason.UID_BEHIND, refusal(b.set(BUCKET, manifest("4"))));
        long stores = backend.stores();
        Thread.sleep(300);
        assertEquals(stores, backend.stores(), "nothing written back while the store holds the manifest in force");
    }

    @Test
    void anEarlierManifestTheBackendWentBackToIsReplacedByTheOneInForce() throws Exception {
        MapBackend backend = new MapBackend();
        BucketManifests a = started(backend, 100);
        done(a.set(BUCKET, manifest("3", "c", "8")));
        String earlier = new String(backend.item(BucketManifests.STORE, BUCKET).value(), StandardCharsets.UTF_8);
        done(a.set(BUCKET, manifest("5", "c", "8", "d", "9")));
        backend.put(BucketManifests.STORE, BUCKET, earlier); // the store restored from an older copy
        await("the later manifest written back", () -> !new String(
                backend.item(BucketManifests.STORE, BUCKET).value(), StandardCharsets.UTF_8).equals(earlier));
        BucketManifests b = started(backend, 100);
        assertEquals(5, b.current(BUCKET).uid());
        assertEquals(9L, b.current(BUCKET).collection(9).id());
    }

    @Test
    void aSetOnAnotherGatewayAfterTheLossWinsOverAWriteBackUnderWay() throws Exception {
        MapBackend backend = new MapBackend();
        BucketManifests a = started(backend, 100);
        BucketManifests b = started(backend, 60_000);
        done(a.set(BUCKET, manifest("5", "c", "8")));
        backend.holdStores = true;
        backend.execute(new Operation.Delete(BucketManifests.STORE, BUCKET.getBytes(StandardCharsets.UTF_8), 0));
        await("a's write-back", () -> backend.held.size() == 1);
        assertTrue(text(backend.held.get(0).store().value()).contains("\\\"uid\\\":\\\"5\\\""),
                text(backend.held.get(0).store().value()));
        // b never saw uid 5; checked against what is stored (nothing), its uid 6 is added.
        CompletionStage<CollectionsManifest> later = b.set(BUCKET, manifest("6", "e", "a"));
        await("b's set", () -> backend.held.size() == 2);
        backend.holdStores = false;
        backend.held.get(1).release().complete(null);
        assertEquals(6, done(later).uid());
        backend.held.get(0).release().complete(null); // a's add then finds b's manifest there, and fails
        await("a to take uid 6 from the store", () -> a.current(BUCKET).uid() == 6);
        assertEquals(6, started(backend, 100).current(BUCKET).uid());
    }

    @Test
    void everyGatewayThatSeesADropFlushes() throws Exception {
        MapBackend backend = new MapBackend();
        FlushRecorder fromA = new FlushRecorder(backend);
        FlushRecorder fromB = new FlushRecorder(backend);
        BucketManifests a = manifests(fromA, 100, new ManifestLimits(100, 1000));
        BucketManifests b = manifests(fromB, 100, new ManifestLimits(100, 1000));
        a.start(WAIT_SECONDS * 1000);
        b.start(WAIT_SECONDS * 1000);
        CollectionsManifest before = done(a.set(BUCKET, manifest("1", "c", "8")));
        await("b to see collection c", () -> b.current(BUCKET).collection(8) != null);

        done(a.set(BUCKET, manifest("2")));
        Namespace dropped = before.collection(8).namespace();
        await("a to flush", () -> fromA.flushed.contains(dropped));
        await("b to flush", () -> fromB.flushed.contains(dropped));
        assertEquals(2, b.current(BUCKET).uid());
    }
}
