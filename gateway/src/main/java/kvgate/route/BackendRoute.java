package kvgate.route;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import kvgate.dispatch.Outcomes;
import kvgate.route.generic.GenericSearch;
import kvgate.route.generic.GenericTags;
import kvgate.route.generic.KeyDirectory;
import kvgate.route.generic.KeyLists;
import kvgate.spi.Backend;
import kvgate.spi.Capability;
import kvgate.spi.Operation;
import kvgate.spi.Result;
import kvgate.spi.Route;
import kvgate.spi.Status;
import org.slf4j.LoggerFactory;

/**
 * A leaf of the route tree: one backend instance, with the generic layer (key directory, tags, search kept as
 * ordinary records) doing what the backend lacks. Each instance has its own generic layer, kept in that instance,
 * so a namespace routed to a memcached pool has its scans and tags there, beside its items.
 */
public final class BackendRoute implements Route {
    private final String name;
    private final String type;
    private final Backend backend;
    /** The generic layer: null where the backend does the job natively. */
    private final KeyDirectory directory;
    private final GenericTags tags;
    private final GenericSearch search;
    /** What the backend declares it can do: an operation needing more ({@link #lacks}) is refused. */
    private final Set<Capability> capabilities;
    /**
     * The kinds of operation the backend's visitor has no method for, learnt the first time one threw: a tag query on
     * a backend that keeps no tags of its own is then not asked again, and costs no exception each time.
     */
    private final Set<Class<?>> visitorLacks = ConcurrentHashMap.newKeySet();

    /**
     * @param name the instance's name ({@code backends.<name>}, or {@code default})
     * @param type its backend type
     * @param directoryScope which namespaces get a key directory when the backend cannot scan
     *     ({@code scan.directory}: all, except_default, none)
     */
    public BackendRoute(String name, String type, Backend backend, String directoryScope) {
        this.name = name;
        this.type = type;
        this.backend = backend;
        KeyLists lists = new KeyLists(backend);
        Set<Capability> native_ = backend.capabilities();
        this.directory = native_.contains(Capability.SCAN)
                ? null : new KeyDirectory(lists, KeyDirectory.Scope.parse(directoryScope));
        this.tags = native_.contains(Capability.TAGS) ? null : new GenericTags(lists);
        this.search = native_.contains(Capability.SEARCH) ? null : new GenericSearch(lists);
        this.capabilities = Set.copyOf(native_);
    }

    /**
     * The one instance of a gateway configured without routes, named {@code default}, as a test or a benchmark puts a
     * single backend behind a dispatcher.
     */
    public static BackendRoute alone(Backend backend) {
        return new BackendRoute(RouteTree.DEFAULT_BACKEND, "unnamed", backend, "except_default");
    }

    public String name() {
        return name;
    }

    public String type() {
        return type;
    }

    public Backend backend() {
        return backend;
    }

    @Override
    public CompletionStage<Result> execute(Operation operation) {
        if (isGeneric(operation)) {
            return generic(operation);
        }
        return listed(operation, Outcomes.guarded(backend.execute(operation)));
    }

    /** One batch to the backend (one round trip for a remote one) unless the generic layer has part in it. */
    @Override
    public List<CompletionStage<Result>> executeAll(List<Operation> operations) {
        for (Operation operation : operations) {
            if (isGeneric(operation)) {
                return Route.super.executeAll(operations);
            }
        }
        List<CompletionStage<Result>> started = Outcomes.executeAll(backend::executeAll, operations);
        if (directory == null) {
            return started; // a backend that scans itself: no key to list, so the stages are the backend's own
        }
        List<CompletionStage<Result>> results = new ArrayList<>(operations.size());
        for (int i = 0; i < operations.size(); i++) {
            results.add(listed(operations.get(i), started.get(i)));
        }
        return results;
    }

    /** Whether the generic layer, not the backend, carries out (or refuses) this operation. */
    private boolean isGeneric(Operation operation) {
        if (lacks(operation) != null) {
            return true;
        }
        if (operation instanceof Operation.Scan) {
            return directory != null;
        }
        if (operation instanceof Operation.Tag || operation instanceof Operation.Untag
                || operation instanceof Operation.TaggedKeys || operation instanceof Operation.DropTags) {
            return tags != null;
        }
        if (operation instanceof Operation.Index || operation instanceof Operation.Unindex
                || operation instanceof Operation.Search) {
            return search != null;
        }
        return false;
    }

    private CompletionStage<Result> generic(Operation operation) {
        Capability lacked = lacks(operation);
        if (lacked != null) {
            // The translators ask only when every backend has it; a reload may have brought one that does not.
            return CompletableFuture.completedFuture(Result.failure(Status.UNSUPPORTED, "backend " + name + " ("
                    + type + ") " + switch (lacked) {
                        case LEASES -> "keeps no stale items or recache wins";
                        case KEEP_EXPIRY -> "cannot keep an item's expiry through a store";
                        case ARITHMETIC_EXPIRY -> "cannot set a counter's expiry with its arithmetic";
                        case CHOSEN_CAS -> "cannot give an item a CAS the client chose";
                        default -> "lacks " + lacked;
                    }));
        } else if (operation instanceof Operation.Scan scan) {
            return listing(scan);
        } else if (operation instanceof Operation.Tag tag) {
            return tags.tag(tag);
        } else if (operation instanceof Operation.Untag untag) {
            return alsoInStore(untag, tags.untag(untag));
        } else if (operation instanceof Operation.TaggedKeys query) {
            return keysWithStores(query, tags.taggedKeys(query));
        } else if (operation instanceof Operation.DropTags drop) {
            return tags.dropAll(drop, this::listing);
        } else if (operation instanceof Operation.Index index) {
            return search.index(index);
        } else if (operation instanceof Operation.Unindex unindex) {
            return alsoInStore(unindex, search.unindex(unindex));
        }
        Operation.Search query = (Operation.Search) operation;
        return keysWithStores(query, search.search(query));
    }

    /**
     * Takes a key off a tag, or off the search index, in the gateway's records and in the store's own (see
     * {@link #keysWithStores}): done when either had it.
     */
    private CompletionStage<Result> alsoInStore(Operation operation, CompletionStage<Result> generic) {
        CompletionStage<Result> stores = storesOwn(operation);
        if (stores == null) {
            return generic;
        }
        return generic.thenCombine(stores, (kept, own) -> {
            if (own.status() == Status.UNSUPPORTED || own.status() == Status.NOT_FOUND) {
                return kept;
            }
            if (!own.ok() || kept.status() == Status.NOT_FOUND) {
                return own;
            }
            return kept;
        });
    }

    /**
     * The backend's answer to an operation it may not implement (an exhaustive scan, a query of its store's own tags
     * or index), or null when its visitor has no method for it.
     */
    private CompletionStage<Result> storesOwn(Operation operation) {
        if (visitorLacks.contains(operation.getClass())) {
            return null;
        }
        try {
            return Outcomes.guarded(backend.execute(operation));
        } catch (UnsupportedOperationException e) {
            visitorLacks.add(operation.getClass());
            return null;
        }
    }

    /**
     * A tag's keys or a search's hits: those the gateway's records give, then those of the store's own tags or index.
     * A store may keep tags and an index its own clients wrote without executing the gateway's operations (an
     * okuyama cluster's): the backend is asked as it is for an exhaustive scan, and one that keeps none answers
     * UNSUPPORTED (or has no visitor method for it). A store that keeps some but cannot answer now fails the query: a
     * partial list would read as keys untagged or not found.
     */
    private CompletionStage<Result> keysWithStores(Operation query, CompletionStage<Result> generic) {
        CompletionStage<Result> stores = storesOwn(query);
        if (stores == null) {
            return generic;
        }
        return generic.thenCombine(stores, (kept, own) -> {
            if (!kept.ok() || own.status() == Status.UNSUPPORTED) {
                return kept;
            }
            if (!(own instanceof Result.Keys ownKeys)) {
                return own;
            }
            Set<ByteBuffer> listed = new LinkedHashSet<>();
            for (byte[] key : ((Result.Keys) kept).keys()) {
                listed.add(ByteBuffer.wrap(key));
            }
            for (byte[] key : ownKeys.keys()) {
                listed.add(ByteBuffer.wrap(key));
            }
            List<byte[]> keys = new ArrayList<>(listed.size());
            for (ByteBuffer key : listed) {
                keys.add(key.array());
            }
            return new Result.Keys(keys);
        });
    }

    /** A scan: what the store holds if it is exhaustive and the backend can list it, else the key directory's. */
    private CompletionStage<Result> listing(Operation.Scan scan) {
        if (directory == null) {
            return Outcomes.guarded(backend.execute(scan)); // the backend lists its namespaces itself
        }
        if (!scan.exhaustive()) {
            return directory.scan(scan);
        }
        // What the store holds, whoever wrote it, if the backend can list it; else what gateways listed.
        CompletionStage<Result> listed = storesOwn(scan);
        if (listed == null) {
            return directory.scan(scan); // a backend's visitor without scans at all
        }
        return listed.thenCompose(result -> result.status() == Status.UNSUPPORTED ? directory.scan(scan)
                : CompletableFuture.completedFuture(result));
    }

    /**
     * Adds the key of a successful write that may create its item ({@link #mayCreate}) to the key directory of its
     * namespace, when the backend cannot scan and the namespace is tracked. The client hears of the store only after that: a store whose key
     * could not be listed is reported as the listing's failure, so a scan never silently misses an acknowledged
     * item.
     */
    private CompletionStage<Result> listed(Operation operation, CompletionStage<Result> stored) {
        if (directory == null || !mayCreate(operation) || !directory.tracks(operation.namespace())) {
            return stored;
        }
        byte[] key = ((Operation.KeyOperation) operation).key();
        return stored.thenCompose(result -> result.ok()
                ? directory.register(operation.namespace(), key).thenApply(listing -> listing.ok() ? result : listing)
                : CompletableFuture.completedFuture(result));
    }

    /**
     * A capability the operation needs and the backend did not declare, or null when it lacks none. Each guards a
     * part of the operation stream added after the first plugins: a plugin written before it would carry such an
     * operation out without its new part, so it is refused instead.
     */
    private Capability lacks(Operation operation) {
        if (!(operation instanceof Operation.KeyOperation keyed)) {
            return null;
        }
        if ((keyed instanceof Operation.LeaseGet || keyed instanceof Operation.Invalidate
                || keyed instanceof Operation.Store store && store.staleIfOlder())
                && !capabilities.contains(Capability.LEASES)) {
            return Capability.LEASES;
        }
        if (keyed instanceof Operation.Store store && store.keepExpiry()
                && !capabilities.contains(Capability.KEEP_EXPIRY)) {
            return Capability.KEEP_EXPIRY;
        }
        if (keyed instanceof Operation.Arithmetic arithmetic && arithmetic.touchExpiresAt() != null
                && !capabilities.contains(Capability.ARITHMETIC_EXPIRY)) {
            return Capability.ARITHMETIC_EXPIRY;
        }
        if (keyed.chosenCas() != 0 && !capabilities.contains(Capability.CHOSEN_CAS)) {
            return Capability.CHOSEN_CAS;
        }
        return null;
    }

    /** Whether the operation may create its key's item: what the key directory lists. */
    private static boolean mayCreate(Operation operation) {
        return operation instanceof Operation.Store || operation instanceof Operation.Arithmetic
                || operation instanceof Operation.LeaseGet get && get.vivifyExpiresAt() != null;
    }

    /** Closes the backend, committing what it acknowledged; a failure to close is logged, never thrown. */
    @Override
    public void close() {
        try {
            backend.close();
        } catch (Exception e) {
            LoggerFactory.getLogger(BackendRoute.class).error("backend {} did not close cleanly", name, e);
        }
    }

    /** Names the backend, and the part of the generic layer that would carry the operation out, if any. */
    @Override
    public Step explain(Operation operation) {
        String by = isGeneric(operation) ? "carried out by the gateway's generic layer over the backend's basic "
                + "operations" : "sent to the backend";
        String listing = directory != null && mayCreate(operation) && directory.tracks(operation.namespace())
                ? ", then its key listed in the key directory" : "";
        return new Step("backend instance of type " + type + " " + backend.capabilities() + ": " + by + listing,
                List.of());
    }

    @Override
    public String toString() {
        return "backend " + name;
    }
}
