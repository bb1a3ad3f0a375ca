package kvgate.spi;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * A node of the route tree: it takes an operation and answers it, usually by passing it to one or more child
 * routes. The leaves are backend instances (with the gateway's generic layer filling what they lack), so a node
 * never talks to a backend directly. Nodes are built once from the configuration by a {@link RouteFactory} and
 * shared by every connection; they must be thread-safe and, like {@link Backend#execute}, must not block.
 *
 * <p>A child's stage may complete exceptionally or with any failure; a node that looks at its children's results
 * (failover, warm-up, shadow) handles both, {@link #answerOf} turning the first into the second. Whatever a node
 * returns is guarded by the gateway: an exception becomes {@link Status#BACKEND_ERROR}.
 */
public interface Route {

    /** Starts one operation. */
    CompletionStage<Result> execute(Operation operation);

    /**
     * The child this node would hand {@code operation} to, unchanged and alone, or {@code this} when the node itself
     * must handle it (it sends to several children, looks at results or changes the operation). Selector nodes
     * (by key prefix, by namespace) return the selected child, so the gateway can find, for a pipelined burst, the
     * one route every operation ends in and send the burst to it as one batch. Must be cheap and free of effects.
     */
    default Route select(Operation operation) {
        return this;
    }

    /**
     * Starts several operations that arrived together, in order, one stage per operation. The gateway calls it only
     * on a route that every operation of the burst {@linkplain #select selects}; a backend leaf sends them to its
     * backend as one batch. The default starts them one by one.
     */
    default List<CompletionStage<Result>> executeAll(List<Operation> operations) {
        List<CompletionStage<Result>> results = new ArrayList<>(operations.size());
        for (Operation operation : operations) {
            results.add(execute(operation));
        }
        return results;
    }

    /**
     * What this node would do with {@code operation}, for an operator checking a route before switching traffic
     * (the admin port's {@code explain}, like mcrouter's {@code route_handles}). Must be free of effects: nothing is
     * sent anywhere. The default says which child a selector hands the operation to, or, for a node that handles it
     * itself, names none: a node that sends to children overrides it to name them.
     */
    default Step explain(Operation operation) {
        Route selected = select(operation);
        return selected == this ? new Step("handled by the node itself", List.of())
                : new Step("handed on", List.of(selected));
    }

    /**
     * One step of an explanation.
     *
     * @param says what the node does with the operation, in a few words ("key prefix 'session:' matches")
     * @param next the children it would use, in the order it would use them; empty for a leaf
     */
    record Step(String says, List<Route> next) {
        public Step {
            next = List.copyOf(next);
        }
    }

    /**
     * What an operator must know of the node's own work, shown beside it by the admin port's {@code routes}: a
     * background job's state ("backfill incomplete: namespace x could not be listed"), empty when there is nothing to
     * say. Read on the admin thread; must not block.
     */
    default String status() {
        return "";
    }

    /**
     * The tree holding the node has been replaced by a reload: the node stops starting work of its own, work no
     * operation asked for (a background copy between stores). Called once, before the gateway waits for the tree's
     * operations and the work its nodes go on with ({@link RouteContext#background}), so that the wait can end;
     * {@link #close} follows. Not called when the gateway stops: it closes the tree at once. Must not block.
     */
    default void retiring() {
    }

    /**
     * Ends the node: called once when the tree holding it is retired (the configuration reloaded, or the gateway
     * stopping), after the operations started on that tree have finished or a grace period has passed. A node that
     * started timers or background work (sampling, a copy between stores) stops it here. Children are not closed by
     * their parents: the gateway closes every node and backend instance of a retired tree itself, once, however many
     * parents name it. Must not block for long.
     */
    default void close() {
    }

    /**
     * {@code child}'s answer to {@code operation}, with whatever the child does wrong (throws, returns no stage,
     * completes exceptionally or with no result) turned into a {@link Status#BACKEND_ERROR} result, as the gateway
     * does for every node: the stage never completes exceptionally, for a node that looks at its children's answers.
     */
    static CompletionStage<Result> answerOf(Route child, Operation operation) {
        try {
            return guarded(child.execute(operation));
        } catch (RuntimeException e) {
            return CompletableFuture.completedFuture(Result.backendError(e));
        }
    }

    /**
     * {@code stage} as a result that never fails: an exceptional completion becomes a {@link Status#BACKEND_ERROR},
     * as do a null result and a null stage. A {@link ResultFuture} cannot fail, and is returned as it is.
     */
    static CompletionStage<Result> guarded(CompletionStage<Result> stage) {
        return ResultFuture.of(stage);
    }

    /**
     * {@code answer}'s result, or {@code late} if it has not come within {@code millis}, whichever comes first: for a
     * node that stops waiting for a child (a failover's deadline, a shadow's). The timer is cancelled when the answer
     * comes. With {@code millis} 0, or a scheduler that takes no more tasks (the gateway is stopping), the answer is
     * awaited without a deadline. {@code answer} should never fail ({@link #answerOf}, {@link #guarded}).
     */
    static CompletionStage<Result> withDeadline(CompletionStage<Result> answer, long millis, Result late,
                                                ScheduledExecutorService scheduler) {
        if (millis == 0 || ResultFuture.isDone(answer)) {
            return answer;
        }
        ResultFuture first = new ResultFuture();
        ScheduledFuture<?> deadline;
        try {
            deadline = scheduler.schedule(() -> first.complete(late), millis, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException stopping) {
            return answer;
        }
        answer.whenComplete((result, error) -> {
            deadline.cancel(false);
            first.settle(result, error);
        });
        return first;
    }

    /**
     * Starts a burst on {@code route} as the gateway starts one on the root: as one batch on the route every operation
     * {@linkplain #selected selects} when they all select the same, else one by one through {@code route}. For a
     * node that hands a burst on to a child whole (the answering child of a shadow or a mirror), so that the burst
     * still reaches a backend as one batch.
     */
    static List<CompletionStage<Result>> executeAllSelected(Route route, List<Operation> operations) {
        if (operations.isEmpty()) {
            return List.of();
        }
        Route target = selected(route, operations.get(0));
        for (int i = 1; i < operations.size(); i++) {
            if (selected(route, operations.get(i)) != target) {
                return route.executeAll(operations);
            }
        }
        return target.executeAll(operations);
    }

    /** The route {@code operation} ends in when every selector on the way has chosen: {@code route} itself or below. */
    static Route selected(Route route, Operation operation) {
        Route current = route;
        for (Route next = current.select(operation); next != current; next = current.select(operation)) {
            current = next;
        }
        return current;
    }
}
