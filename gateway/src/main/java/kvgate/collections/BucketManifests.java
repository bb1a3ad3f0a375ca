package kvgate.collections;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
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
 * <p>The data path reads each bucket's manifest from a {@link Bucket} it holds, a field away, without locks, lookups
 * or JSON. The manifests are read again from the backend every half of the configured bound, so a manifest set
 * through another gateway is in force here within it; a manifest set through this gateway is in force here at once.
 * A bucket's manifest in force only moves forward (a manifest's uid only grows), so a refresh that read the backend
 * before a set here finished cannot put the older manifest back.
 *
 * <p>When a manifest drops collections, their namespaces are flushed one refresh bound later (so writes that other
 * gateways made before they saw the drop go too). Every gateway that sees the drop flushes; flushing is idempotent.
 *
 * <p>A refresh that finds the backend holding an earlier manifest than the one in force here, or none, writes the
 * one in force back ({@link #restore}): the backend lost it.
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

    /** A configured bucket and the manifest in force for it: what a connection that selected it holds. */
    public static final class Bucket {
        private final String name;
        /** Null until the manifest was first read. */
        private final AtomicReference<Stored> stored = new AtomicReference<>();
        /** The read of the manifest under way, if any: a backend slower than the refresh gets one read at a time. */
        private volatile CompletableFuture<Stored> reading;

        private Bucket(String name) {
            this.name = name;
        }

        public String name() {
            return name;
        }

        /** The manifest in force, or null while it is not known (not read yet: the backend was not reachable). */
        public CollectionsManifest manifest() {
            Stored now = stored.get();
            return now == null ? null : now.manifest();
        }

        /**
         * Puts {@code fresh} in force unless a later manifest already is; returns the one it replaced (null if none
         * was in force), or {@code fresh} itself when it was not put in force.
         */
        private Stored advance(Stored fresh) {
            while (true) {
                Stored now = stored.get();
                // Uids are unsigned 64-bit: one of 2^63 or more is a negative long, and later than any below it.
                if (now != null && Long.compareUnsigned(now.manifest().uid(), fresh.manifest().uid()) > 0) {
                    return fresh;
                }
                if (stored.compareAndSet(now, fresh)) {
                    return now;
                }
            }
        }
    }

    private final Map<String, Bucket> buckets;
    private final Dispatcher dispatcher;
    private final ManifestLimits limits;
    private final long refreshBoundMillis;
    private final ScheduledExecutorService scheduler;
    private final Set<String> updating = ConcurrentHashMap.newKeySet();
    private volatile ScheduledFuture<?> refresher;

    public BucketManifests(Set<String> buckets, Dispatcher dispatcher, ManifestLimits limits,
                           long refreshBoundMillis, ScheduledExecutorService scheduler) {
        Map<String, Bucket> byName = new LinkedHashMap<>();
        for (String bucket : buckets) {
            byName.put(bucket, new Bucket(bucket));
        }
        this.buckets = Map.copyOf(byName);
        this.dispatcher = dispatcher;
        this.limits = limits;
        this.refreshBoundMillis = refreshBoundMillis;
        this.scheduler = scheduler;
    }

    /**
     * Reads every bucket's manifest, waiting up to {@code waitMillis}, then keeps them fresh. A bucket whose manifest
     * could not be read yet has none in force: its documents answer temporary failure until the next refresh.
     */
    public void start(long waitMillis) {
        try {
            CompletableFuture.allOf(buckets.values().stream().map(this::refresh).toArray(CompletableFuture<?>[]::new))
                    .get(waitMillis, TimeUnit.MILLISECONDS);
        } catch (Exception e) {
            LOG.warn("collections manifests not read at start-up ({}); retrying every {} ms", e.toString(),
                    refreshPeriod());
        }
        refresher = scheduler.scheduleWithFixedDelay(this::refreshAll, refreshPeriod(), refreshPeriod(),
                TimeUnit.MILLISECONDS);
    }

    private long refreshPeriod() {
        return Math.max(1, refreshBoundMillis / 2);
    }

    private void refreshAll() {
        buckets.values().forEach(this::refresh);
    }

    /**
     * Reads a bucket's manifest again and puts it in force; when it drops collections of the one it replaces, their
     * namespaces are purged later, and when it is earlier than the one in force, that one is written back. The stage
     * fails when the manifest could not be read (logged; the next refresh tries again).
     */
    private CompletableFuture<Stored> refresh(Bucket bucket) {
        CompletableFuture<Stored> underWay = bucket.reading;
        if (underWay != null && !underWay.isDone()) {
            return underWay;
        }
        Stored known = bucket.stored.get();
        CompletableFuture<Stored> next = read(bucket.name, known).thenCompose(fresh -> {
            Stored replaced = bucket.advance(fresh);
            if (replaced != null && replaced != fresh) {
                purgeLater(fresh.manifest().droppedSince(replaced.manifest()));
            }
            // Only a manifest in force since before the read is compared: one a set here put in force meanwhile
            // is later than the read by its nature, and stored already.
            return known != null && bucket.stored.get() == known
                    && Long.compareUnsigned(known.manifest().uid(), fresh.manifest().uid()) > 0
                    ? restore(known.manifest(), fresh) : CompletableFuture.completedFuture(fresh);
        }).whenComplete((fresh, failure) -> {
            if (failure != null) {
                LOG.debug("reading the collections manifest of bucket {} failed", bucket.name, failure);
            }
        }).toCompletableFuture();
        bucket.reading = next;
        return next;
    }

    /**
     * Writes back the manifest in force here when the backend holds an earlier one or none: it lost the manifest
     * (memcached evicts, and a flush of every server takes it too), and only a manifest this gateway read or set
     * there is ever in force here. Without this, every gateway started afterwards would begin with what the store
     * holds. Added where none is stored and swapped in by CAS where an earlier one is: a manifest of a later uid set
     * meanwhile through another gateway wins, one of an earlier uid (accepted there, against what was left) is
     * replaced, as uids only move forward. While a set is under way here, the next refresh does it.
     */
    private CompletionStage<Stored> restore(CollectionsManifest inForce, Stored stored) {
        String bucket = inForce.bucket();
        if (!updating.add(bucket)) {
            return CompletableFuture.completedFuture(stored);
        }
        return write(inForce, stored.cas()).handle((cas, failure) -> {
            updating.remove(bucket);
            if (failure != null) {
                LOG.debug("writing back the collections manifest of bucket {} failed", bucket, failure);
                return stored;
            }
            LOG.warn("the backend held {} for the collections manifest of bucket {}, where uid {} is in force "
                    + "here; wrote that back", stored.cas() == 0 ? "nothing"
                    : "uid " + Long.toUnsignedString(stored.manifest().uid(), 16), bucket,
                    Long.toUnsignedString(inForce.uid(), 16));
            Stored written = new Stored(inForce, cas);
            advance(bucket, written);
            return written;
        });
    }

    public boolean hasBucket(String bucket) {
        return buckets.containsKey(bucket);
    }

    /** The configured bucket of that name, or null. */
    public Bucket bucket(String name) {
        return buckets.get(name);
    }

    /** The manifest in force for {@code bucket}, or null when it is not known (not configured, or not yet read). */
    public CollectionsManifest current(String bucket) {
        Bucket known = buckets.get(bucket);
        return known == null ? null : known.manifest();
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
            // Checked against the later of the stored manifest and the one in force here: a stored manifest that
            // went (a memcached store evicts) must not let a lower uid through, nor rename an id in force.
            CollectionsManifest inForce = current(bucket);
            CollectionsManifest previous = inForce != null
                    && Long.compareUnsigned(inForce.uid(), stored.manifest().uid()) > 0 ? inForce : stored.manifest();
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
            if (next.uid() == previous.uid() && next.uid() == stored.manifest().uid()) {
                // The same manifest again: nothing to store, but it is in force here from now on even if this
                // gateway had not refreshed since another set it.
                advance(bucket, stored);
                return CompletableFuture.completedFuture(previous);
            }
            return write(next, stored.cas()).thenApply(cas -> {
                advance(bucket, new Stored(next, cas));
                purgeLater(next.droppedSince(previous));
                return next;
            });
        });
        return update.whenComplete((manifest, error) -> updating.remove(bucket));
    }

    private void advance(String bucket, Stored fresh) {
        Bucket known = buckets.get(bucket);
        if (known != null) {
            known.advance(fresh);
        }
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
