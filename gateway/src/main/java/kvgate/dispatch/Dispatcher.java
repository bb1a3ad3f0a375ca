package kvgate.dispatch;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import kvgate.metrics.GatewayMetrics;
import kvgate.spi.Backend;
import kvgate.spi.Capability;
import kvgate.spi.Operation;
import kvgate.spi.OperationFilter;
import kvgate.spi.Result;
import kvgate.spi.Status;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends operations through the filter chain to the backend and counts their outcomes. Whatever a filter or backend
 * does wrong — throws, returns null, completes exceptionally — the caller gets a {@link Status#BACKEND_ERROR}
 * result, so a failure always reaches the client.
 *
 * <p>Counter operations go to the counter store, everything else to the data backend; without a counter store,
 * counter operations are {@link Status#UNSUPPORTED}.
 *
 * <p>A flush with a delay is answered at once and sent to the backend when the delay is over, so backends only see
 * immediate flushes. Such a pending flush does not survive a restart of the gateway.
 */
public final class Dispatcher {
    private static final Logger LOG = LoggerFactory.getLogger(Dispatcher.class);

    private final Backend backend;
    private final Backend counters;
    private final List<OperationFilter> filters;
    private final GatewayMetrics metrics;
    private final ScheduledExecutorService scheduler;
    /** The generic layer: null where the backend does the job natively. */
    private final KeyDirectory directory;
    private final GenericTags tags;
    private final GenericSearch search;

    public Dispatcher(Backend backend, List<OperationFilter> filters, GatewayMetrics metrics,
                      ScheduledExecutorService scheduler) {
        this(backend, null, filters, metrics, scheduler, "except_default");
    }

    /**
     * @param counters the counter store, or null when the gateway keeps no counters
     * @param directoryScope which namespaces get a key directory when the backend cannot scan
     *     ({@code scan.directory}: all, except_default, none)
     */
    public Dispatcher(Backend backend, Backend counters, List<OperationFilter> filters, GatewayMetrics metrics,
                      ScheduledExecutorService scheduler, String directoryScope) {
        this.backend = backend;
        this.counters = counters;
        this.filters = List.copyOf(filters);
        this.metrics = metrics;
        this.scheduler = scheduler;
        KeyLists lists = new KeyLists(backend);
        Set<Capability> native_ = backend.capabilities();
        this.directory = native_.contains(Capability.SCAN)
                ? null : new KeyDirectory(lists, KeyDirectory.Scope.parse(directoryScope));
        this.tags = native_.contains(Capability.TAGS) ? null : new GenericTags(lists);
        this.search = native_.contains(Capability.SEARCH) ? null : new GenericSearch(lists);
    }

    /** Starts one operation. The stage never completes exceptionally. */
    public CompletionStage<Result> dispatch(Operation operation) {
        return counted(operation, chain(0, operation));
    }

    /**
     * Starts operations that arrived together from one connection, in order. Without filters they reach the backend
     * as one batch (one round trip for a remote backend). The stages never complete exceptionally.
     */
    public List<CompletionStage<Result>> dispatchAll(List<Operation> operations) {
        if (operations.isEmpty()) {
            return List.of();
        }
        Backend target = targetOf(operations.get(0));
        if (target == null || !filters.isEmpty() || !batchable(operations, target)) {
            List<CompletionStage<Result>> results = new ArrayList<>(operations.size());
            for (Operation operation : operations) {
                results.add(dispatch(operation));
            }
            return results;
        }
        List<CompletionStage<Result>> started = Outcomes.executeAll(target, operations);
        List<CompletionStage<Result>> results = new ArrayList<>(operations.size());
        for (int i = 0; i < operations.size(); i++) {
            results.add(counted(operations.get(i), listed(operations.get(i), started.get(i))));
        }
        return results;
    }

    /** The results of every stage, in order, once all completed (the dispatcher's stages never fail). */
    public static CompletionStage<List<Result>> joined(List<CompletionStage<Result>> stages) {
        CompletableFuture<?>[] all = new CompletableFuture<?>[stages.size()];
        for (int i = 0; i < all.length; i++) {
            all[i] = stages.get(i).toCompletableFuture();
        }
        return CompletableFuture.allOf(all).thenApply(ignored -> {
            List<Result> results = new ArrayList<>(stages.size());
            for (CompletionStage<Result> stage : stages) {
                results.add(stage.toCompletableFuture().join());
            }
            return results;
        });
    }

    private CompletionStage<Result> chain(int index, Operation operation) {
        try {
            if (index < filters.size()) {
                return Outcomes.guarded(filters.get(index).apply(operation, next -> chain(index + 1, next)));
            }
            return Outcomes.guarded(terminal(operation));
        } catch (RuntimeException e) {
            LOG.warn("operation failed in {}", index < filters.size() ? "filter " + filters.get(index).name()
                    : "the backend", e);
            return CompletableFuture.completedFuture(Outcomes.backendError(e));
        }
    }

    private CompletionStage<Result> terminal(Operation operation) {
        if (isDelayedFlush(operation)) {
            Operation.Flush flush = (Operation.Flush) operation;
            scheduler.schedule(() -> chain(filters.size(), new Operation.Flush(flush.namespace(), 0)),
                    flush.delayMillis(), TimeUnit.MILLISECONDS);
            return CompletableFuture.completedFuture(Result.DONE);
        }
        Backend target = targetOf(operation);
        if (target == null) {
            return CompletableFuture.completedFuture(Result.failure(Status.UNSUPPORTED, "no counter store"));
        }
        if (target != backend) {
            return target.execute(operation);
        }
        if (isGeneric(operation)) {
            return generic(operation);
        }
        return listed(operation, Outcomes.guarded(target.execute(operation)));
    }

    /** Whether every operation goes to {@code target} as it is: no delayed flush, nothing for the generic layer. */
    private boolean batchable(List<Operation> operations, Backend target) {
        for (Operation operation : operations) {
            if (targetOf(operation) != target || isDelayedFlush(operation) || isGeneric(operation)) {
                return false;
            }
        }
        return true;
    }

    /** Whether the generic layer, not the backend, carries out this operation. */
    private boolean isGeneric(Operation operation) {
        if (operation instanceof Operation.Scan) {
            return directory != null;
        }
        if (operation instanceof Operation.Tag || operation instanceof Operation.Untag
                || operation instanceof Operation.TaggedKeys) {
            return tags != null;
        }
        if (operation instanceof Operation.Index || operation instanceof Operation.Search) {
            return search != null;
        }
        return false;
    }

    private CompletionStage<Result> generic(Operation operation) {
        if (operation instanceof Operation.Scan scan) {
            return directory.scan(scan);
        } else if (operation instanceof Operation.Tag tag) {
            return tags.tag(tag);
        } else if (operation instanceof Operation.Untag untag) {
            return tags.untag(untag);
        } else if (operation instanceof Operation.TaggedKeys query) {
            return tags.taggedKeys(query);
        } else if (operation instanceof Operation.Index index) {
            return search.index(index);
        }
        return search.search((Operation.Search) operation);
    }

    /**
     * Adds the key of a successful store or arithmetic to the key directory of its namespace, when the backend
     * cannot scan and the namespace is tracked. The client hears of the store only after that: a store whose key
     * could not be listed is reported as the listing's failure, so a scan never silently misses an acknowledged
     * item.
     */
    private CompletionStage<Result> listed(Operation operation, CompletionStage<Result> stored) {
        if (directory == null || !(operation instanceof Operation.Store || operation instanceof Operation.Arithmetic)
                || !directory.tracks(operation.namespace())) {
            return stored;
        }
        byte[] key = ((Operation.KeyOperation) operation).key();
        return stored.thenCompose(result -> result.ok()
                ? directory.register(operation.namespace(), key).thenApply(listing -> listing.ok() ? result : listing)
                : CompletableFuture.completedFuture(result));
    }

    private Backend targetOf(Operation operation) {
        return Operation.isCounterOperation(operation) ? counters : backend;
    }

    private static boolean isDelayedFlush(Operation operation) {
        return operation instanceof Operation.Flush flush && flush.delayMillis() > 0;
    }

    private CompletionStage<Result> counted(Operation operation, CompletionStage<Result> stage) {
        Result now = Stages.valueNow(stage);
        if (now != null) {
            metrics.completed(operation, now.status());
            return stage;
        }
        return stage.thenApply(result -> {
            metrics.completed(operation, result.status());
            return result;
        });
    }
}
