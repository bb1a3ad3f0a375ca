package kvgate.route;

import java.util.List;
import kvgate.spi.Route;
import kvgate.spi.RouteContext;
import kvgate.spi.Setting;

/**
 * The explicit leaf {@code routes.<name>.type = backend}, {@code routes.<name>.backend = <instance>}. Any place
 * that names a route may name a backend instance directly instead; this node gives an instance a second name, and
 * refuses a name that is not a backend instance.
 */
final class BackendLeaf {
    static final String TYPE = "backend";
    static final String BACKEND = "backend";

    static final NodeType NODE = new NodeType(TYPE, List.of(Setting.text(BACKEND, "",
            "the backend instance (backends.<name>, or default) (required)")), BackendLeaf::build);

    private BackendLeaf() {
    }

    private static Route build(RouteContext context) {
        String name = context.required(BACKEND);
        Route route = context.route(name);
        if (!(route instanceof BackendRoute)) {
            throw new IllegalArgumentException(BACKEND + " = " + name + " is a route, not a backend instance");
        }
        return route;
    }
}
