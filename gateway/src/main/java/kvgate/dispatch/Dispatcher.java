package kvgate.dispatch;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import kvgate.metrics.GatewayMetrics;
import kvgate.spi.Backend;
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

    public Dispatcher(Backend backend, List<OperationFilter> filters, GatewayMetrics metrics,
                      ScheduledExecutorService scheduler) {
        this(backend, null, filters, metrics, scheduler);
    }

    /** @param counters the counter store, or null when the gateway keeps no counters */
    public Dispatcher(Backend backend, Backend counters, List<OperationFilter> filters, GatewayMetrics metrics,
                      ScheduledExecutorService scheduler) {
        this.backend = backend;
        this.counters = counters;
        this.filters = List.copyOf(filters);
        this.metrics = metrics;
        this.scheduler = scheduler;
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
        boolean oneTarget = operations.stream().allMatch(operation -> targetOf(operation) == target);
        if (target == null || !oneTarget || !filters.isEmpty()
                || operations.stream().anyMatch(Dispatcher::isDelayedFlush)) {
            List<CompletionStage<Result>> results = new ArrayList<>(operations.size());
            for (Operation operation : operations) {
                results.add(dispatch(operation));
            }
            return results;
        }
        List<CompletionStage<Result>> started;
        try {
            started = target.executeAll(operations);
            if (started == null || started.size() != operations.size()) {
                throw new IllegalStateException("executeAll returned " + (started == null ? "null" : started.size()
                        + " results") + " for " + operations.size() + " operations");
            }
        } catch (RuntimeException e) {
            LOG.warn("backend failed a batch of {} operations", operations.size(), e);
            started = new ArrayList<>(operations.size());
            for (int i = 0; i < operations.size(); i++) {
                started.add(CompletableFuture.completedFuture(backendError(e)));
            }
        }
        List<CompletionStage<Result>> results = new ArrayList<>(operations.size());
        for (int i = 0; i < operations.size(); i++) {
            results.add(counted(operations.get(i), guarded(started.get(i))));
        }
        return results;
    }

    private CompletionStage<Result> chain(int index, Operation operation) {
        try {
            if (index < filters.size()) {
                return guarded(filters.get(index).apply(operation, next -> chain(index + 1, next)));
            }
            return guarded(terminal(operation));
        } catch (RuntimeException e) {
            LOG.warn("operation failed in {}", index < filters.size() ? "filter " + filters.get(index).name()
                    : "the backend", e);
            return CompletableFuture.completedFuture(backendError(e));
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
        return target.execute(operation);
    }

    private Backend targetOf(Operation operation) {
        return Operation.isCounterOperation(operation) ? counters : backend;
    }

    private static boolean isDelayedFlush(Operation operation) {
        return operation instanceof Operation.Flush flush && flush.delayMillis() > 0;
    }

    private static CompletionStage<Result> guarded(CompletionStage<Result> stage) {
        if (stage == null) {
            return CompletableFuture.completedFuture(Result.failure(Status.BACKEND_ERROR, "no result"));
        }
        return stage.handle((result, error) -> {
            if (error != null) {
                LOG.warn("operation completed with an exception", error);
                return backendError(error);
            }
            return result == null ? Result.failure(Status.BACKEND_ERROR, "no result") : result;
        });
    }

    private CompletionStage<Result> counted(Operation operation, CompletionStage<Result> stage) {
        return stage.thenApply(result -> {
            metrics.completed(operation, result.status());
            return result;
        });
    }

    private static Result backendError(Throwable error) {
        String message = error.getMessage();
        return Result.failure(Status.BACKEND_ERROR, message == null ? error.getClass().getSimpleName() : message);
    }
}
