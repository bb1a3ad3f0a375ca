package kvgate.collections;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.github.benmanes.caffeine.cache.AsyncCacheLoader;
import com.github.benmanes.caffeine.cache.AsyncLoadingCache;
import com.github.benmanes.caffeine.cache.Caffeine;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import kvgate.dispatch.Dispatcher;
import kvgate.spi.Item;
import kvgate.spi.Namespace;
import kvgate.spi.Operation;
import kvgate.spi.Result;
import kvgate.spi.Status;
import kvgate.spi.StoreMode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The collections manifest of every configured bucket. Each lives in the backend as an ordinary item of the
 * {@link #STORE} namespace (key: the bucket's name), so it survives restarts and every gateway on the same backend
 * reads the same one; an update is a compare-and-swap on that item, so two concurrent updates cannot both win.
 *
 * <p>The data path reads snapshots from a Caffeine cache, without locks or JSON. The cache is refreshed from the
 * backend at half the configured bound, so a manifest set through another gateway is in force here within it; a
 * manifest set through this gateway is in force here at once.
 *
 * <p>When a manifest drops collections, their namespaces are flushed one refresh bound later (so writes that other
 * gateways made before they saw the drop go too). Every gateway that sees the drop flushes; flushing is idempotent.
 */
public final class BucketManifests implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(BucketManifests.class);
    /** Where manifests are stored: a name no bucket can have, as bucket names have no colon. */
    public static final Namespace STORE = new Namespace("kvgate:manifests");
    /** The bucket a connection uses before it selects one, when it is configured. */
    public static final String DEFAULT_BUCKET = "default";
    private static final ObjectMapper JSON = new ObjectMapper();

    /** A stored manifest and the CAS to replace it with (0: none stored yet). */
    private record Stored(CollectionsManifest manifest, long cas) {
    }

    private final Set<String> buckets;
    private final Dispatcher dispatcher;
    private final ManifestLimits limits;
    private final long refreshBoundMillis;
    private final ScheduledExecutorService scheduler;
    private final AsyncLoadingCache<String, Stored> cache;
    private final Set<String> updating = ConcurrentHashMap.newKeySet();
    private volatile ScheduledFuture<?> refresher;

    public BucketManifests(Set<String> buckets, Dispatcher dispatcher, ManifestLimits limits,
                           long refreshBoundMillis, ScheduledExecutorService scheduler) {
        this.buckets = Set.copyOf(buckets);
        this.dispatcher = dispatcher;
        this.limits = limits;
        this.refreshBoundMillis = refreshBoundMillis;
        this.scheduler = scheduler;
        this.cache = Caffeine.newBuilder()
                .executor(scheduler)
                .buildAsync(new AsyncCacheLoader<>() {
                    @Override
                    public CompletableFuture<Stored> asyncLoad(String bucket, Executor executor) {
                        return read(bucket, null).toCompletableFuture();
                    }

                    @Override
                    public CompletableFuture<Stored> asyncReload(String bucket, Stored old, Executor executor) {
                        return read(bucket, old).thenApply(fresh -> {
                            if (fresh != old) {
                                purgeLater(fresh.manifest().droppedSince(old.manifest()));
                            }
                            return fresh;
                        }).toCompletableFuture();
                    }
                });
    }

    /**
     * Loads every bucket's manifest, waiting up to {@code waitMillis}, then keeps them fresh. A bucket whose manifest
     * could not be read yet has none in force: its documents answer temporary failure until the next refresh.
     */
    public void start(long waitMillis) {
        try {
            cache.getAll(buckets).get(waitMillis, TimeUnit.MILLISECONDS);
        } catch (Exception e) {
            LOG.warn("collections manifests not read at start-up ({}); retrying every {} ms", e.toString(),
                    refreshPeriod());
        }
        refresher = scheduler.scheduleWithFixedDelay(this::refresh, refreshPeriod(), refreshPeriod(),
                TimeUnit.MILLISECONDS);
    }

    private long refreshPeriod() {
        return Math.max(1, refreshBoundMillis / 2);
    }

    private void refresh() {
        for (String bucket : buckets) {
            CompletableFuture<Stored> current = cache.getIfPresent(bucket);
            if (current == null) {
                cache.get(bucket); // never loaded (the backend was down): try again
            } else {
                cache.synchronous().refresh(bucket);
            }
        }
    }

    public boolean hasBucket(String bucket) {
        return buckets.contains(bucket);
    }

    /** The manifest in force for {@code bucket}, or null when it is not known (not configured, or not yet read). */
    public CollectionsManifest current(String bucket) {
        CompletableFuture<Stored> future = cache.getIfPresent(bucket);
        if (future == null || !future.isDone() || future.isCompletedExceptionally()) {
            return null;
        }
        return future.join().manifest();
    }

    /**
     * Sets a bucket's manifest. The stage completes with the manifest now in force, or exceptionally with a
     * {@link ManifestRejected} saying why not.
     */
    public CompletionStage<CollectionsManifest> set(String bucket, byte[] json) {
        if (!updating.add(bucket)) {
            return CompletableFuture.failedFuture(new ManifestRejected(ManifestRejected.Reason.CONCURRENT_UPDATE,
                    "another manifest update of bucket " + bucket + " is under way"));
        }
        CompletionStage<CollectionsManifest> update = read(bucket, null).thenCompose(stored -> {
            CollectionsManifest previous = stored.manifest();
            CollectionsManifest next;
            try {
                next = ManifestParser.parse(bucket, json, limits, (id, uid) -> {
                    CollectionsManifest.Collection kept = previous.collection(id);
                    return kept != null ? kept.namespace() : CollectionsManifest.namespaceOf(bucket, id, uid);
                });
                next.checkSucceeds(previous);
            } catch (ManifestRejected rejected) {
                return CompletableFuture.failedFuture(rejected);
            }
            if (next.uid() == previous.uid()) {
                // The same manifest again: nothing to store, but it is in force here from now on even if this
                // gateway had not refreshed since another set it.
                cache.put(bucket, CompletableFuture.completedFuture(stored));
                return CompletableFuture.completedFuture(previous);
            }
            return write(next, stored.cas()).thenApply(cas -> {
                cache.put(bucket, CompletableFuture.completedFuture(new Stored(next, cas)));
                purgeLater(next.droppedSince(previous));
                return next;
            });
        });
        return update.whenComplete((manifest, error) -> updating.remove(bucket));
    }

    /**
     * Reads a bucket's stored manifest. When its CAS is that of {@code known}, nothing changed since: {@code known}
     * itself is the answer, so a periodic refresh parses no JSON.
     */
    private CompletionStage<Stored> read(String bucket, Stored known) {
        return dispatcher.dispatchOwn(new Operation.Get(STORE, key(bucket))).thenApply(result -> {
            if (result.status() == Status.NOT_FOUND) {
                return known != null && known.cas() == 0 ? known : new Stored(CollectionsManifest.initial(bucket), 0);
            }
            if (!result.ok()) {
                throw new IllegalStateException(new ManifestRejected(ManifestRejected.Reason.STORE_FAILED,
                        "reading the manifest of bucket " + bucket + " failed: " + result));
            }
            Item item = ((Result.Value) result).item();
            if (known != null && known.cas() == item.cas()) {
                return known;
            }
            return new Stored(decode(bucket, item.value()), item.cas());
        });
    }

    /** Stores {@code next} if the stored manifest is still the one read (CAS), or adds it if none was stored. */
    private CompletionStage<Long> write(CollectionsManifest next, long cas) {
        Operation store = new Operation.Store(STORE, key(next.bucket()), cas == 0 ? StoreMode.ADD : StoreMode.SET,
                encode(next), 0, Item.NEVER, cas);
        return dispatcher.dispatchOwn(store).thenApply(result -> {
            if (result.status() == Status.EXISTS || result.status() == Status.NOT_FOUND
                    || result.status() == Status.NOT_STORED) {
                throw new IllegalStateException(new ManifestRejected(ManifestRejected.Reason.CONCURRENT_UPDATE,
                        "the manifest of bucket " + next.bucket() + " changed during this update"));
            }
            if (!result.ok()) {
                throw new IllegalStateException(new ManifestRejected(ManifestRejected.Reason.STORE_FAILED,
                        "storing the manifest of bucket " + next.bucket() + " failed: " + result));
            }
            return ((Result.Stored) result).cas();
        });
    }

    /** The rejection inside a failed {@link #set} stage, or null when it failed for another reason. */
    public static ManifestRejected rejection(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof ManifestRejected rejected) {
                return rejected;
            }
        }
        return null;
    }

    private void purgeLater(List<Namespace> dropped) {
        if (dropped.isEmpty()) {
            return;
        }
        scheduler.schedule(() -> dropped.forEach(namespace -> dispatcher.dispatchOwn(new Operation.Flush(namespace, 0))
                .thenAccept(result -> {
                    if (result.ok()) {
                        LOG.info("purged dropped collection namespace {}", namespace);
                    } else {
                        LOG.warn("purging dropped collection namespace {} failed: {}", namespace, result);
                    }
                })), refreshBoundMillis, TimeUnit.MILLISECONDS);
    }

    private static byte[] key(String bucket) {
        return bucket.getBytes(StandardCharsets.UTF_8);
    }

    /**
     * The stored form: the manifest as set, and the namespace of each collection (which depends on the history of
     * manifests, so it cannot be derived from the manifest alone).
     */
    private static byte[] encode(CollectionsManifest manifest) {
        ObjectNode record = JSON.createObjectNode();
        record.put("manifest", manifest.json());
        ObjectNode namespaces = record.putObject("namespaces");
        for (CollectionsManifest.Scope scope : manifest.scopes()) {
            for (CollectionsManifest.Collection collection : scope.collections()) {
                namespaces.put(Long.toHexString(collection.id()), collection.namespace().name());
            }
        }
        try {
            return JSON.writeValueAsBytes(record);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private static CollectionsManifest decode(String bucket, byte[] stored) {
        try {
            JsonNode record = JSON.readTree(stored);
            JsonNode namespaces = record.get("namespaces");
            return ManifestParser.parse(bucket, record.get("manifest").textValue().getBytes(StandardCharsets.UTF_8),
                    ManifestLimits.NONE, (id, uid) -> {
                        JsonNode name = namespaces.get(Long.toHexString(id));
                        return name != null ? new Namespace(name.textValue())
                                : CollectionsManifest.namespaceOf(bucket, id, uid);
                    });
        } catch (IOException | ManifestRejected | RuntimeException e) {
            // A store failure, not the client's: the rejection carries no cause, so nothing inside reads as INVALID.
            throw new IllegalStateException(new ManifestRejected(ManifestRejected.Reason.STORE_FAILED,
                    "the stored manifest of bucket " + bucket + " is unreadable: " + e.getMessage()));
        }
    }

    @Override
    public void close() {
        ScheduledFuture<?> task = refresher;
        if (task != null) {
            task.cancel(false);
        }
    }
}
