package kvgate.route;

import java.util.List;
import java.util.function.Function;
import kvgate.spi.Route;
import kvgate.spi.RouteContext;
import kvgate.spi.RouteFactory;
import kvgate.spi.Setting;

/** One of the gateway's own node types: its name, its settings and how a node is built from them. */
record NodeType(String type, List<Setting> settings, Function<RouteContext, Route> builder) implements RouteFactory {
    NodeType {
        settings = List.copyOf(settings);
    }

    @Override
    public Route build(RouteContext context) {
        return builder.apply(context);
    }
}
