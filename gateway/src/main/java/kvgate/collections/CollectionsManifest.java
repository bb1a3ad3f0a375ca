package kvgate.collections;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import kvgate.spi.Namespace;

/**
 * One bucket's collections manifest as set: an immutable snapshot that the data path reads without locks. Each
 * collection is a namespace of the operation stream. A collection keeps its namespace for as long as successive
 * manifests keep its id; a collection that is dropped and later defined again gets a new one, so items of the
 * dropped collection never reappear.
 */
public final class CollectionsManifest {

    /** A collection: its unique id, name, scope, the longest expiry of new items (0: none) and its namespace. */
    public record Collection(long id, String name, long scopeId, long maxTtlSeconds, Namespace namespace) {
    }

    /** A scope: its unique id, name and collections in manifest order. */
    public record Scope(long id, String name, List<Collection> collections) {
        public Scope {
            collections = List.copyOf(collections);
        }

        /** The collection of this scope with that name, or null. */
        public Collection collection(String name) {
            for (Collection collection : collections) {
                if (collection.name().equals(name)) {
                    return collection;
                }
            }
            return null;
        }
    }

    private final String bucket;
    private final long uid;
    private final String json;
    private final List<Scope> scopes;
    private final Map<Long, Collection> collectionsById;
    /**
     * The default collection, or null when this manifest dropped it: every request of a client that never asked
     * for collections names it, and the map's boxed-key lookup showed as 2–3% of the gateway's CPU samples under
     * deep pipelines.
     */
    private final Collection defaultCollection;
    private final Map<String, Scope> scopesByName;

    CollectionsManifest(String bucket, long uid, String json, List<Scope> scopes) {
        this.bucket = bucket;
        this.uid = uid;
        this.json = json;
        this.scopes = List.copyOf(scopes);
        Map<Long, Collection> byId = new HashMap<>();
        Map<String, Scope> byName = new LinkedHashMap<>();
        for (Scope scope : scopes) {
            byName.put(scope.name(), scope);
            for (Collection collection : scope.collections()) {
                byId.put(collection.id(), collection);
            }
        }
        this.collectionsById = Collections.unmodifiableMap(byId);
        this.defaultCollection = byId.get(0L);
        this.scopesByName = Collections.unmodifiableMap(byName);
    }

    /**
     * The manifest a bucket has before any is set: uid 0, the default scope holding the default collection, whose
     * namespace is the bucket's own name (so the default bucket's default collection is {@link Namespace#DEFAULT}).
     */
    public static CollectionsManifest initial(String bucket) {
        Collection collection = new Collection(0, CollectionName.DEFAULT, 0, 0, namespaceOf(bucket, 0, 0));
        String json = "{\"uid\":\"0\",\"scopes\":[{\"name\":\"_default\",\"uid\":\"0\","
                + "\"collections\":[{\"name\":\"_default\",\"uid\":\"0\"}]}]}";
        return new CollectionsManifest(bucket, 0, json, List.of(new Scope(0, CollectionName.DEFAULT,
                List.of(collection))));
    }

    /**
     * The namespace of a collection first defined by the manifest with uid {@code since}: the bucket's name for the
     * default collection as it exists from the start, else {@code <bucket>/<id>:<since>} in hex.
     */
    public static Namespace namespaceOf(String bucket, long collectionId, long since) {
        if (collectionId == 0 && since == 0) {
            return new Namespace(bucket);
        }
        return new Namespace(bucket + "/" + Long.toHexString(collectionId) + ":" + Long.toHexString(since));
    }

    public String bucket() {
        return bucket;
    }

    public long uid() {
        return uid;
    }

    /** The uid as manifests and error contexts write it: lowercase hex without {@code 0x}. */
    public String uidHex() {
        return Long.toHexString(uid);
    }

    /** The manifest exactly as it was set (the initial manifest's canonical text before any was). */
    public String json() {
        return json;
    }

    public List<Scope> scopes() {
        return scopes;
    }

    /** The collection with that id, or null when this manifest has none. */
    public Collection collection(long id) {
        return id == 0 ? defaultCollection : collectionsById.get(id);
    }

    /** The scope with that name, or null. */
    public Scope scope(String name) {
        return scopesByName.get(name);
    }

    /** Every collection's namespace. */
    public List<Namespace> namespaces() {
        List<Namespace> namespaces = new ArrayList<>(collectionsById.size());
        collectionsById.values().forEach(collection -> namespaces.add(collection.namespace()));
        return namespaces;
    }

    /** The namespaces of {@code previous} that this manifest no longer has: their items are to be purged. */
    public List<Namespace> droppedSince(CollectionsManifest previous) {
        Set<Namespace> kept = new HashSet<>(namespaces());
        List<Namespace> dropped = new ArrayList<>();
        for (Namespace namespace : previous.namespaces()) {
            if (!kept.contains(namespace)) {
                dropped.add(namespace);
            }
        }
        return dropped;
    }

    /**
     * Checks that this manifest may follow {@code previous}: its uid is not lower; with an equal uid it defines the
     * same scopes and collections; an id kept from {@code previous} keeps its name (and a collection its scope).
     */
    public void checkSucceeds(CollectionsManifest previous) throws ManifestRejected {
        if (Long.compareUnsigned(uid, previous.uid) < 0) {
            throw new ManifestRejected(ManifestRejected.Reason.UID_BEHIND, "manifest uid " + uidHex()
                    + " is lower than the current uid " + previous.uidHex());
        }
        if (uid == previous.uid && !sameDefinition(previous)) {
            throw new ManifestRejected(ManifestRejected.Reason.CANNOT_APPLY, "manifest uid " + uidHex()
                    + " is the current uid but defines other scopes or collections");
        }
        for (Scope scope : scopes) {
            for (Scope before : previous.scopes) {
                if (before.id() == scope.id() && !before.name().equals(scope.name())) {
                    throw new ManifestRejected(ManifestRejected.Reason.CANNOT_APPLY, "scope " + Long.toHexString(
                            scope.id()) + " was named " + before.name() + ", cannot become " + scope.name());
                }
            }
        }
        for (Collection collection : collectionsById.values()) {
            Collection before = previous.collection(collection.id());
            if (before != null && (!before.name().equals(collection.name())
                    || before.scopeId() != collection.scopeId())) {
                throw new ManifestRejected(ManifestRejected.Reason.CANNOT_APPLY, "collection "
                        + Long.toHexString(collection.id()) + " cannot change its name or scope");
            }
        }
    }

    private boolean sameDefinition(CollectionsManifest other) {
        if (!collectionsById.equals(other.collectionsById) || scopes.size() != other.scopes.size()) {
            return false;
        }
        for (Scope scope : scopes) {
            Scope same = other.scope(scope.name());
            if (same == null || same.id() != scope.id()) {
                return false;
            }
        }
        return true;
    }
}
