package kvgate.dispatch;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import kvgate.metrics.GatewayMetrics;
import kvgate.spi.Backend;
import kvgate.spi.Operation;
import kvgate.spi.Result;
import kvgate.spi.Route;
import kvgate.spi.Status;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends operations into the route tree and counts their outcomes. Whatever a route node or backend does wrong —
 * throws, returns null, completes exceptionally — the caller gets a {@link Status#BACKEND_ERROR} result, so a
 * failure always reaches the client.
 *
 * <p>Counter operations go to the counter store, everything else into the route tree (with one backend, a single
 * leaf); without a counter store, counter operations are {@link Status#UNSUPPORTED}.
 *
 * <p>A flush with a delay is answered at once and sent into the tree when the delay is over, so backends only see
 * immediate flushes. Such a pending flush does not survive a restart of the gateway.
 *
 * <p>The route tree can be replaced while operations run ({@link #swap}, on a reload): each burst reads the tree in
 * force once and finishes on it, and each tree counts the operations started on it and not finished, so the one
 * replaced can be closed once they are done.
 */
public final class Dispatcher implements OperationStream {
    private static final Logger LOG = LoggerFactory.getLogger(Dispatcher.class);

    private volatile Generation current;
    private final Route counters;
    private final GatewayMetrics metrics;
    private final ScheduledExecutorService scheduler;

    /**
     * @param routes the root of the route tree
     * @param counters the counter store, or null when the gateway keeps no counters
     */
    public Dispatcher(Route routes, Backend counters, GatewayMetrics metrics, ScheduledExecutorService scheduler) {
        this.current = new Generation(routes);
        this.counters = counters == null ? null : new Route() {
            @Override
            public CompletionStage<Result> execute(Operation operation) {
                return counters.execute(operation);
            }

            @Override
            public List<CompletionStage<Result>> executeAll(List<Operation> operations) {
                return counters.executeAll(operations);
            }
        };
        this.metrics = metrics;
        this.scheduler = scheduler;
    }

    /**
     * A route tree in force, and how many operations started on it have not finished. An operation is counted from
     * before it reaches the tree, so once the tree is replaced and the count is zero, nothing can reach it any more.
     */
    public static final class Generation {
        private final Route root;
        private final LongAdder unfinished = new LongAdder();

        private Generation(Route root) {
            this.root = root;
        }

        public Route root() {
            return root;
        }

        /** Operations started on this tree and not finished. */
        public long unfinished() {
            return unfinished.sum();
        }
    }

    /** The tree in force. */
    public Route routes() {
        return current.root;
    }

    /**
     * Puts {@code routes} in force for every burst that starts from now on, and returns the tree it replaces, whose
     * operations in flight finish on it ({@link Generation#unfinished}).
     */
    public synchronized Generation swap(Route routes) {
        Generation replaced = current;
        current = new Generation(routes);
        return replaced;
    }

    /** Starts one operation. The stage never completes exceptionally. */
    @Override
    public CompletionStage<Result> dispatch(Operation operation) {
        Generation tree = enter(1);
        return counted(tree, operation, run(tree, operation));
    }

    /**
     * The tree in force, with {@code operations} counted as started on it. Counted first and checked after: a tree
     * swapped out between the read and the count may already have been found idle and closed, and is then left
     * for the one in force, never entered.
     */
    private Generation enter(int operations) {
        while (true) {
            Generation tree = current;
            tree.unfinished.add(operations);
            if (tree == current) {
                return tree;
            }
            tree.unfinished.add(-operations);
        }
    }

    /**
     * Starts an operation of the gateway's own, not a client's (a read of a collections manifest, which every
     * gateway repeats twice a refresh bound): as {@link #dispatch}, but left out of the operation counts, so that
     * the stats clients read (memcached's {@code cmd_get}) count their requests only, as memcached's do.
     */
    public CompletionStage<Result> dispatchOwn(Operation operation) {
        Generation tree = enter(1);
        return run(tree, operation).whenComplete((result, error) -> tree.unfinished.decrement());
    }

    /**
     * Starts operations that arrived together from one connection, in order. The operations that end in the same
     * route reach it as one batch (one round trip for a remote backend); with one backend, that is
     * the whole burst. The stages never complete exceptionally.
     */
    @Override
    public List<CompletionStage<Result>> dispatchAll(List<Operation> operations) {
        if (operations.isEmpty()) {
            return List.of();
        }
        if (operations.size() == 1) {
            // A request alone in its burst, as every request of a client that waits for each reply: none of the
            // batch path's lists.
            return List.of(dispatch(operations.get(0)));
        }
        // The whole burst is counted before any of it runs, so that all of it finishes on one tree.
        Generation tree = enter(operations.size());
        Route first = targetOf(tree, operations.get(0));
        boolean oneTarget = first != null;
        for (int i = 1; oneTarget && i < operations.size(); i++) {
            oneTarget = targetOf(tree, operations.get(i)) == first;
        }
        if (oneTarget) {
            return counted(tree, operations, Outcomes.executeAll(first::executeAll, operations));
        }
        return batchedByTarget(tree, operations);
    }

    /**
     * A burst whose operations end in different routes: one batch per route, each in the burst's order (order
     * matters per key, and a key always ends in the same route).
     */
    private List<CompletionStage<Result>> batchedByTarget(Generation tree, List<Operation> operations) {
        List<CompletionStage<Result>> results = new ArrayList<>(Collections.nCopies(operations.size(), null));
        Map<Route, List<Integer>> batches = new LinkedHashMap<>();
        for (int i = 0; i < operations.size(); i++) {
            Route target = targetOf(tree, operations.get(i));
            if (target == null) {
                results.set(i, counted(tree, operations.get(i), run(tree, operations.get(i))));
            } else {
                batches.computeIfAbsent(target, ignored -> new ArrayList<>()).add(i);
            }
        }
        batches.forEach((target, indexes) -> {
            List<Operation> batch = new ArrayList<>(indexes.size());
            indexes.forEach(index -> batch.add(operations.get(index)));
            List<CompletionStage<Result>> started = counted(tree, batch,
                    Outcomes.executeAll(target::executeAll, batch));
            for (int i = 0; i < indexes.size(); i++) {
                results.set(indexes.get(i), started.get(i));
            }
        });
        return results;
    }


    private CompletionStage<Result> run(Generation tree, Operation operation) {
        try {
            return Outcomes.guarded(terminal(tree, operation));
        } catch (RuntimeException e) {
            LOG.warn("operation failed in the route tree", e);
            return CompletableFuture.completedFuture(Result.backendError(e));
        }
    }

    private CompletionStage<Result> terminal(Generation tree, Operation operation) {
        if (operation instanceof Operation.Flush flush && flush.delayMillis() > 0) {
            scheduler.schedule(() -> {
                Generation then = enter(1);
                run(then, new Operation.Flush(flush.namespace(), 0))
                        .whenComplete((result, error) -> then.unfinished.decrement());
            }, flush.delayMillis(), TimeUnit.MILLISECONDS);
            return CompletableFuture.completedFuture(Result.DONE);
        }
        if (Operation.isCounterOperation(operation)) {
            return counters == null ? CompletableFuture.completedFuture(
                    Result.failure(Status.UNSUPPORTED, "no counter store")) : counters.execute(operation);
        }
        return tree.root.execute(operation);
    }

    /**
     * The route an operation ends in, to batch it with others; null for one that must go alone (a delayed flush, a
     * counter operation without a counter store).
     */
    private Route targetOf(Generation tree, Operation operation) {
        if (Operation.isCounterOperation(operation)) {
            return counters;
        }
        if (operation instanceof Operation.Flush flush && flush.delayMillis() > 0) {
            return null;
        }
        try {
            return Route.selected(tree.root, operation);
        } catch (RuntimeException e) {
            // A node whose selection throws: the operation goes alone, on the path that answers the failure,
            // and the burst counted as started is counted as finished, operation by operation.
            return null;
        }
    }

    /**
     * Counts outcomes, and each operation finished on {@code tree}; the operations were counted as started.
     * {@code stages} is a list of {@link Outcomes#executeAll}'s making, the caller's own: a stage not finished yet
     * is replaced in it by the stage that counts it when it finishes.
     */
    private List<CompletionStage<Result>> counted(Generation tree, List<Operation> operations,
                                                  List<CompletionStage<Result>> stages) {
        int finishedNow = 0;
        for (int i = 0; i < stages.size(); i++) {
            CompletionStage<Result> stage = stages.get(i);
            Result now = Stages.valueNow(stage);
            if (now != null) {
                metrics.completed(operations.get(i), now.status());
                finishedNow++;
            } else {
                stages.set(i, later(tree, operations.get(i), stage));
            }
        }
        tree.unfinished.add(-finishedNow);
        return stages;
    }

    private CompletionStage<Result> counted(Generation tree, Operation operation, CompletionStage<Result> stage) {
        Result now = Stages.valueNow(stage);
        if (now != null) {
            metrics.completed(operation, now.status());
            tree.unfinished.decrement();
            return stage;
        }
        return later(tree, operation, stage);
    }

    private CompletionStage<Result> later(Generation tree, Operation operation, CompletionStage<Result> stage) {
        return stage.thenApply(result -> {
            tree.unfinished.decrement();
            metrics.completed(operation, result.status());
            return result;
        });
    }
}
