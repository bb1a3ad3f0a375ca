package kvgate.route;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import kvgate.spi.Namespace;
import kvgate.spi.Operation;
import kvgate.spi.Result;
import kvgate.spi.Route;
import kvgate.spi.RouteContext;
import kvgate.spi.Setting;

/**
 * Selects a child by the operation's namespace: a Couchbase collection, an MPDB collection or node bucket, the
 * okuyama namespace. A match is a namespace's name, or a name ending in {@code *} that matches every namespace
 * starting with what precedes it: {@code mpdb:*} is every MPDB collection, {@code travel/*} every collection of
 * bucket {@code travel} but its default one (namespace {@code travel}). Every operation has a namespace, so this
 * node only ever selects.
 */
final class NamespaceRoute implements Route {
    static final String TYPE = "namespace";
    static final String NAMESPACES = "namespaces";
    static final String DEFAULT = "default";
    private static final String ANY = "*";

    static final NodeType NODE = new NodeType(TYPE, List.of(
            Setting.text(NAMESPACES, "", "comma-separated namespace=route pairs; a namespace ending in * matches "
                    + "every namespace starting with the rest (the longest such match wins)"),
            Setting.text(DEFAULT, "", "the route of namespaces nothing matches (required)")),
            NamespaceRoute::build);

    private static Route build(RouteContext context) {
        Route fallback = context.route(context.required(DEFAULT));
        Map<Namespace, Route> exact = new HashMap<>();
        List<Wildcard> wildcards = new ArrayList<>();
        Choices.parse(NAMESPACES, context.settings().text(NAMESPACES)).forEach((match, child) -> {
            if (match.endsWith(ANY)) {
                wildcards.add(new Wildcard(match.substring(0, match.length() - ANY.length()), context.route(child)));
            } else {
                exact.put(new Namespace(match), context.route(child));
            }
        });
        wildcards.sort(Comparator.comparingInt((Wildcard wildcard) -> wildcard.start().length()).reversed());
        return new NamespaceRoute(context.name(), Map.copyOf(exact), wildcards, fallback);
    }

    private record Wildcard(String start, Route route) {
    }

    private final String name;
    private final Map<Namespace, Route> exact;
    /** Longest start first, so the first match is the longest. */
    private final List<Wildcard> wildcards;
    private final Route fallback;

    private NamespaceRoute(String name, Map<Namespace, Route> exact, List<Wildcard> wildcards, Route fallback) {
        this.name = name;
        this.exact = exact;
        this.wildcards = List.copyOf(wildcards);
        this.fallback = fallback;
    }

    @Override
    public Route select(Operation operation) {
        Namespace namespace = operation.namespace();
        Route route = exact.get(namespace);
        if (route != null) {
            return route;
        }
        Wildcard wildcard = matching(namespace);
        return wildcard == null ? fallback : wildcard.route();
    }

    /** The longest wildcard matching {@code namespace}, or null. */
    private Wildcard matching(Namespace namespace) {
        for (Wildcard wildcard : wildcards) {
            if (namespace.name().startsWith(wildcard.start())) {
                return wildcard;
            }
        }
        return null;
    }

    @Override
    public CompletionStage<Result> execute(Operation operation) {
        return select(operation).execute(operation);
    }

    @Override
    public Step explain(Operation operation) {
        Namespace namespace = operation.namespace();
        Route route = exact.get(namespace);
        if (route != null) {
            return new Step("namespace " + namespace + " is listed", List.of(route));
        }
        Wildcard wildcard = matching(namespace);
        return wildcard == null ? new Step("namespace " + namespace + " matches nothing: the default",
                List.of(fallback))
                : new Step("namespace " + namespace + " matches " + wildcard.start() + ANY, List.of(wildcard.route()));
    }

    @Override
    public String toString() {
        return "route " + name + " (" + TYPE + ")";
    }
}
