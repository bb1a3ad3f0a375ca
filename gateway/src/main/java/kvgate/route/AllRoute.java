package kvgate.route;

import java.util.List;
import java.util.concurrent.CompletionStage;
import kvgate.dispatch.Outcomes;
import kvgate.spi.Operation;
import kvgate.spi.Result;
import kvgate.spi.Route;
import kvgate.spi.RouteContext;
import kvgate.spi.Setting;

/**
 * Sends each operation to every child at once and answers with the first child's answer (mcrouter's
 * AllInitialRoute): the others are kept in step but their answers never delay or change a reply. Reads go to every
 * child too; put this node under a prefix or namespace node to copy only part of the traffic.
 */
final class AllRoute implements Route {
    static final String TYPE = "all";
    static final String CHILDREN = "children";

    static final NodeType NODE = new NodeType(TYPE, List.of(Setting.text(CHILDREN, "",
            "comma-separated routes each operation goes to; the first one's answer is the reply")),
            context -> new AllRoute(context, context.routes(CHILDREN, 1)));

    private final List<Route> children;
    /** Its name, and where the other children's writes are counted as work after the answer. */
    private final RouteContext context;

    private AllRoute(RouteContext context, List<Route> children) {
        this.context = context;
        this.children = List.copyOf(children);
    }

    @Override
    public CompletionStage<Result> execute(Operation operation) {
        CompletionStage<Result> answer = children.get(0).execute(operation);
        for (int i = 1; i < children.size(); i++) {
            // Still under way when the first child answers, maybe: counted, so that a reload does not close their
            // stores under them.
            context.background(Outcomes.guarded(children.get(i).execute(operation)));
        }
        return answer;
    }

    @Override
    public Step explain(Operation operation) {
        return new Step("sends to every child, answers with the first's answer", children);
    }

    @Override
    public String toString() {
        return "route " + context.name() + " (" + TYPE + ")";
    }
}
