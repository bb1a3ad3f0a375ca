package kvgate.plugin.failover;

import java.util.List;
import java.util.Locale;
import kvgate.spi.Route;
import kvgate.spi.RouteContext;
import kvgate.spi.RouteFactory;
import kvgate.spi.Setting;
import org.pf4j.Extension;

/** Builds failover nodes: {@code routes.<name>.type = failover}, settings {@code routes.<name>.*}. */
@Extension
public final class FailoverRouteFactory implements RouteFactory {
    static final String TYPE = "failover";
    static final String CHILDREN = "children";
    static final String TIMEOUT_MS = "timeout_ms";
    static final String FAILOVER_ON = "failover_on";

    @Override
    public String type() {
        return TYPE;
    }

    @Override
    public List<Setting> settings() {
        return List.of(
                Setting.text(CHILDREN, "", "comma-separated routes, tried in order (at least two)"),
                Setting.integer(TIMEOUT_MS, 0, 0, 3_600_000, "a child unanswered this long counts as failed and "
                        + "the next is tried (0: only the children's own timeouts)"),
                Setting.choice(FAILOVER_ON, "temporary_failure", "which failures move on to the next child: "
                        + "temporary_failure (a write whose outcome is unknown stays with its answer) or "
                        + "any_failure", "temporary_failure", "any_failure"));
    }

    @Override
    public Route build(RouteContext context) {
        return new FailoverRoute(context, context.routes(CHILDREN, 2), context.settings().integer(TIMEOUT_MS),
                FailoverRoute.FailoverOn.valueOf(context.settings().text(FAILOVER_ON).toUpperCase(Locale.ROOT)));
    }
}
