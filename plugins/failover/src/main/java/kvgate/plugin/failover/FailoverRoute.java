package kvgate.plugin.failover;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import kvgate.spi.Operation;
import kvgate.spi.Result;
import kvgate.spi.ResultFuture;
import kvgate.spi.Route;
import kvgate.spi.RouteContext;
import kvgate.spi.Status;

/**
 * Sends each operation to the first child, and to the next when one fails, until one answers; the last child's
 * answer stands. By default only a {@link Status#TEMPORARY_FAILURE} moves on (down, ejected, a read that timed
 * out): a {@link Status#BACKEND_ERROR} means the outcome is unknown (a write may have happened), and repeating it
 * elsewhere could leave two stores disagreeing. {@code failover_on = any_failure} moves on after that too, for
 * stores used as caches, where answering matters more than agreeing.
 *
 * <p>{@code timeout_ms} gives the node a deadline of its own per child, shorter than the children's: a child that has
 * not answered by then is left (its late answer is ignored) as if it had failed, temporarily for an operation that
 * changes nothing and with an unknown outcome for one that changes something, so a write moves on only with
 * {@code any_failure}.
 */
final class FailoverRoute implements Route {
    /** Which failures move an operation on to the next child. */
    enum FailoverOn {
        TEMPORARY_FAILURE,
        ANY_FAILURE;

        /**
         * Whether {@code result} moves the operation on. Failures that are the store's answer about the data (not
         * found, exists, not stored, non-numeric, too large, invalid) would be the same from any child, and never do.
         */
        boolean movesOn(Result result) {
            Status status = result.status();
            return status == Status.TEMPORARY_FAILURE
                    || (this == ANY_FAILURE && (status == Status.BACKEND_ERROR || status == Status.UNSUPPORTED));
        }
    }

    private final List<Route> children;
    private final long timeoutMillis;
    private final FailoverOn failoverOn;
    private final RouteContext context;

    FailoverRoute(RouteContext context, List<Route> children, long timeoutMillis, FailoverOn failoverOn) {
        this.context = context;
        this.children = List.copyOf(children);
        this.timeoutMillis = timeoutMillis;
        this.failoverOn = failoverOn;
    }

    @Override
    public CompletionStage<Result> execute(Operation operation) {
        return from(0, operation);
    }

    private CompletionStage<Result> from(int index, Operation operation) {
        CompletionStage<Result> answer = withDeadline(Route.answerOf(children.get(index), operation), operation);
        if (index == children.size() - 1) {
            return answer;
        }
        return answer.thenCompose(result -> failoverOn.movesOn(result)
                ? from(index + 1, operation) : CompletableFuture.completedFuture(result));
    }

    /** The child's answer, or at the node's deadline a failure standing for it, whichever comes first. */
    private CompletionStage<Result> withDeadline(CompletionStage<Result> answer, Operation operation) {
        if (timeoutMillis == 0 || ResultFuture.isDone(answer)) {
            return answer;
        }
        Result late = changesNothing(operation)
                ? Result.failure(Status.TEMPORARY_FAILURE, "no answer within " + timeoutMillis + " ms")
                : Result.failure(Status.BACKEND_ERROR, "no answer within " + timeoutMillis + " ms: the outcome "
                        + "is unknown");
        // A child left at the deadline still works on the request: counted, so that a reload waits for it before it
        // closes the child's store.
        return Route.withDeadline(context.background(answer), timeoutMillis, late, context.scheduler());
    }

    private static boolean changesNothing(Operation operation) {
        return Operation.readsItem(operation) || operation instanceof Operation.Scan
                || operation instanceof Operation.TaggedKeys || operation instanceof Operation.Search;
    }

    @Override
    public Step explain(Operation operation) {
        return new Step("tries each in order, the next after " + (failoverOn == FailoverOn.ANY_FAILURE
                ? "any failure" : "a temporary failure") + (timeoutMillis > 0 ? " or " + timeoutMillis
                + " ms without an answer" : ""), children);
    }

    @Override
    public String toString() {
        return "route " + context.name() + " (" + FailoverRouteFactory.TYPE + ")";
    }
}
