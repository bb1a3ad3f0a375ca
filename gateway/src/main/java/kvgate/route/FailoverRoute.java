package kvgate.route;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import kvgate.dispatch.Outcomes;
import kvgate.spi.Operation;
import kvgate.spi.Result;
import kvgate.spi.Route;
import kvgate.spi.Setting;
import kvgate.spi.Status;

/**
 * Sends each operation to the first child, and to the next when one answers {@link Status#TEMPORARY_FAILURE}
 * (down, ejected, or no reply within its own timeout: a backend reports all of these so), until one answers; the
 * last child's answer stands. Any other answer, failures included, is final: a {@link Status#BACKEND_ERROR} means
 * the outcome is unknown (a write may have happened), and repeating it elsewhere could leave two stores disagreeing.
 */
final class FailoverRoute implements Route {
    static final String TYPE = "failover";
    static final String CHILDREN = "children";

    static final NodeType NODE = new NodeType(TYPE, List.of(Setting.text(CHILDREN, "",
            "comma-separated routes, tried in order (at least two)")),
            context -> new FailoverRoute(context.name(), context.routes(CHILDREN, 2)));

    private final String name;
    private final List<Route> children;

    private FailoverRoute(String name, List<Route> children) {
        this.name = name;
        this.children = List.copyOf(children);
    }

    @Override
    public CompletionStage<Result> execute(Operation operation) {
        return from(0, operation);
    }

    private CompletionStage<Result> from(int index, Operation operation) {
        CompletionStage<Result> answer = Outcomes.guarded(children.get(index).execute(operation));
        if (index == children.size() - 1) {
            return answer;
        }
        return answer.thenCompose(result -> result.status() == Status.TEMPORARY_FAILURE
                ? from(index + 1, operation) : CompletableFuture.completedFuture(result));
    }

    @Override
    public Step explain(Operation operation) {
        return new Step("tries each in order, the next after a temporary failure", children);
    }

    @Override
    public String toString() {
        return "route " + name + " (" + TYPE + ")";
    }
}
