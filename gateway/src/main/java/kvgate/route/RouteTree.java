package kvgate.route;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import kvgate.config.ConfigurationException;
import kvgate.config.StartupException;
import kvgate.metrics.GatewayMetrics;
import kvgate.spi.Operation;
import kvgate.spi.Route;
import kvgate.spi.RouteContext;
import kvgate.spi.RouteFactory;
import kvgate.spi.Settings;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The route tree as configured: named backend instances ({@code backends.<name>.type = <backend type>}), named
 * nodes ({@code routes.<name>.type = <node type>}) and the root ({@code route = <name>}). Wherever a node names a
 * child, it may name a route or a backend instance; {@code default} is the instance of {@code backend = <type>}.
 *
 * <p>The tree is checked whole before a request is served: every name must resolve, no node may reach itself, and
 * every configured route and instance must be reached from the root (one that is not is a typo or a leftover).
 * Backend instances are opened when the tree first reaches them, so an instance is opened once however many nodes
 * name it, and {@code default} only when used.
 *
 * <p>A tree built on a reload keeps every backend instance of the tree before whose type and settings are unchanged
 * (its connections, its store, its generic layer), and opens the others. It keeps every node whose type and settings
 * are unchanged and whose children are all kept too (a warm-up node's backfill runs on, a shadow's counts go on);
 * the others are built anew.
 */
public final class RouteTree {
    private static final Logger LOG = LoggerFactory.getLogger(RouteTree.class);
    /** The instance name of the backend configured by {@code backend = <type>} and {@code <type>.<key>}. */
    public static final String DEFAULT_BACKEND = "default";
    static final String BACKENDS = "backends.";
    static final String ROUTES = "routes.";
    static final String TYPE = "type";

    /** The gateway's own node types. */
    public static final List<RouteFactory> BUILT_IN = List.of(BackendLeaf.NODE, PrefixRoute.NODE,
            NamespaceRoute.NODE, AllRoute.NODE);

    /** Opens a backend instance for the tree, or fails. */
    @FunctionalInterface
    public interface Opener {
        BackendRoute open(Instance instance) throws StartupException;
    }

    /**
     * A backend instance as configured: two are the same instance when name, type and settings are all equal.
     *
     * @param settings its settings, without the {@code backends.<name>.} (or {@code <type>.}) prefix
     */
    public record Instance(String name, String type, Map<String, String> settings) {
        public Instance {
            settings = Map.copyOf(settings);
        }
    }

    private final String rootName;
    private final Route root;
    /** Every node and instance of the tree by name, in the order they were built (children first). */
    private final Map<String, Route> named;
    /** What each name is: {@code route <type>} or {@code backend <type>}. */
    private final Map<String, String> kinds;
    private final Map<Instance, BackendRoute> instances;
    /** {@link #instances}' values, once: the tree's instances are fixed when it is built. */
    private final List<BackendRoute> instanceList;
    /** Every node (not the instances) by name, as built or kept. */
    private final Map<String, Node> nodes;

    /**
     * A node as configured and built: what a reload compares to keep it.
     *
     * @param children the names it resolved while it was built, in order
     * @param background its work after its answers ({@link RouteContext.Background}) not yet done
     */
    private record Node(Route route, String type, Map<String, String> settings, List<String> children,
                        LongAdder background) {
    }

    private RouteTree(String rootName, Route root, Map<String, Route> named, Map<String, String> kinds,
                      Map<Instance, BackendRoute> instances, Map<String, Node> nodes) {
        this.nodes = nodes;
        this.rootName = rootName;
        this.root = root;
        this.named = named;
        this.kinds = kinds;
        this.instances = instances;
        this.instanceList = List.copyOf(instances.values());
    }

    public Route root() {
        return root;
    }

    /**
     * Work the tree's nodes started after their answers and have not finished ({@link RouteContext#background}), but
     * for the nodes {@code successor} kept, whose work goes on in it.
     */
    public long background(RouteTree successor) {
        long sum = 0;
        for (Node node : nodes.values()) {
            if (successor == null || !successor.holds(node.route())) {
                sum += node.background().sum();
            }
        }
        return sum;
    }

    /** Whether {@code route} is one of this tree's nodes. */
    private boolean holds(Route route) {
        for (Node node : nodes.values()) {
            if (node.route() == route) {
                return true;
            }
        }
        return false;
    }

    /** The names of the nodes of this tree that {@code previous} had too, kept rather than built anew. */
    public List<String> nodesKeptFrom(RouteTree previous) {
        List<String> kept = new ArrayList<>();
        nodes.forEach((name, node) -> {
            if (previous != null && previous.holds(node.route())) {
                kept.add(name);
            }
        });
        return kept;
    }

    /** The names of the nodes of this tree built anew rather than kept from {@code previous}. */
    public List<String> nodesBuiltSince(RouteTree previous) {
        List<String> built = new ArrayList<>(nodes.keySet());
        built.removeAll(nodesKeptFrom(previous));
        return built;
    }

    /** The backend instances the tree reaches, in the order they were opened: the same list for the tree's life. */
    public List<BackendRoute> instances() {
        return instanceList;
    }

    /** The configured name of a node or instance of this tree, or null. */
    String nameOf(Route route) {
        for (Map.Entry<String, Route> entry : named.entrySet()) {
            if (entry.getValue() == route) {
                return entry.getKey();
            }
        }
        return null;
    }

    /** The tree's nodes and instances, one line each, a node's {@link Route#status} after it: the root first. */
    public List<String> describe() {
        List<String> lines = new ArrayList<>();
        lines.add("route = " + rootName);
        new TreeMap<>(kinds).forEach((name, kind) -> {
            Node node = nodes.get(name);
            String status = "";
            try {
                status = node == null ? "" : node.route().status();
            } catch (RuntimeException e) {
                status = "cannot tell its status: " + e;
            }
            lines.add(name + " (" + kind + ")" + (status == null || status.isEmpty() ? "" : ": " + status));
        });
        return lines;
    }

    /**
     * The path {@code operation} would take from the root, one line a node, children indented under their parent,
     * each line naming the node, its kind and what it does with the operation. Nothing is sent anywhere.
     */
    public List<String> explain(Operation operation) {
        List<String> lines = new ArrayList<>();
        lines.add("route = " + rootName);
        explain(root, operation, 0, lines, new HashSet<>());
        return lines;
    }

    private void explain(Route route, Operation operation, int depth, List<String> lines, Set<Route> path) {
        String name = nameOf(route);
        String label = name == null ? String.valueOf(route) : name + " (" + kinds.get(name) + ")";
        if (!path.add(route)) {
            lines.add("  ".repeat(depth) + label + ": (already on this path)");
            return;
        }
        Route.Step step;
        try {
            step = route.explain(operation);
        } catch (RuntimeException e) {
            step = new Route.Step("cannot explain itself: " + e, List.of());
        }
        lines.add("  ".repeat(depth) + label + ": " + step.says());
        for (Route next : step.next()) {
            explain(next, operation, depth + 1, lines, path);
        }
        path.remove(route);
    }

    /**
     * Closes a tree that was never put in force (a refused reload) and what it opened that {@code inForce} does not
     * hold: its nodes stop their own work first, as a replaced tree's do.
     */
    public void discard(RouteTree inForce) {
        retiring(inForce);
        retire(inForce);
    }

    /**
     * Tells every node that {@code successor} did not keep that the tree has been replaced ({@link Route#retiring}),
     * before its work is waited for.
     */
    public void retiring(RouteTree successor) {
        eachNode(successor, Route::retiring, "stop its own work");
    }

    /**
     * Closes what this tree holds and {@code successor} does not: every node it did not keep ({@link Route#close}),
     * and every backend instance it did not keep. With no successor (the gateway stopping), everything.
     */
    public void retire(RouteTree successor) {
        eachNode(successor, Route::close, "close");
        instances.forEach((instance, opened) -> {
            if (successor == null || successor.instances.get(instance) != opened) {
                opened.close();
            }
        });
    }

    /**
     * Calls {@code action} on every node (not the backend instances) that {@code successor} does not hold; one node's
     * failure does not stop it.
     */
    private void eachNode(RouteTree successor, Consumer<Route> action, String what) {
        for (Map.Entry<String, Route> entry : named.entrySet()) {
            if (entry.getValue() instanceof BackendRoute
                    || (successor != null && successor.holds(entry.getValue()))) {
                continue;
            }
            try {
                action.accept(entry.getValue());
            } catch (RuntimeException e) {
                LOG.warn("route {} did not {} cleanly", entry.getKey(), what, e);
            }
        }
    }

    /** The gateway's node types and the plugins', by type. */
    public static Map<String, RouteFactory> nodeTypes(Map<String, RouteFactory> plugins)
            throws ConfigurationException {
        Map<String, RouteFactory> types = new LinkedHashMap<>();
        BUILT_IN.forEach(factory -> types.put(factory.type(), factory));
        for (Map.Entry<String, RouteFactory> plugin : plugins.entrySet()) {
            if (types.putIfAbsent(plugin.getKey(), plugin.getValue()) != null) {
                throw new ConfigurationException("a plugin offers route node type '" + plugin.getKey()
                        + "', which is the gateway's own");
            }
        }
        return types;
    }

    /**
     * Builds the tree from its root.
     *
     * @param root the value of {@code route}: a route or backend name; empty means {@code default}
     * @param defaultType the type of the {@code default} instance ({@code backend = <type>})
     * @param all every resolved configuration value, the routes' under {@code routes.<name>.}
     * @param previous the tree in force, whose unchanged instances are kept; null at start
     * @throws ConfigurationException when a name does not resolve, a node refuses its settings, the tree loops or
     *     leaves a configured route or instance unreached
     * @throws StartupException when an instance fails to open
     */
    public static RouteTree build(String root, String defaultType, RouteDeclarations declared, Settings all,
                                  Map<String, RouteFactory> nodeTypes, Opener opener,
                                  ScheduledExecutorService scheduler, GatewayMetrics metrics, RouteTree previous)
            throws ConfigurationException, StartupException {
        if (root.isEmpty() && !(declared.backends().isEmpty() && declared.routes().isEmpty())) {
            throw new ConfigurationException("backends or routes are configured (" + declared.describe()
                    + ") but 'route' is empty: name the root of the route tree");
        }
        String rootName = root.isEmpty() ? DEFAULT_BACKEND : root;
        Builder builder = new Builder(declared, defaultType, all, nodeTypes, opener, scheduler, metrics, previous);
        try {
            Route tree = builder.route(rootName, "route = " + root);
            Set<String> unreached = new TreeSet<>();
            declared.routes().keySet().stream().filter(name -> !builder.built.containsKey(name))
                    .forEach(name -> unreached.add(ROUTES + name));
            declared.backends().keySet().stream().filter(name -> !builder.built.containsKey(name))
                    .forEach(name -> unreached.add(BACKENDS + name));
            if (!unreached.isEmpty()) {
                throw new Refused(new ConfigurationException(String.join(", ", unreached)
                        + " configured but not reached from route = " + root));
            }
            return new RouteTree(rootName, tree, builder.built, builder.kinds, builder.instances, builder.nodes);
        } catch (Refused refused) {
            // Nothing of a refused tree stays open; instances kept from the tree in force are not its to close.
            new RouteTree(rootName, null, builder.built, builder.kinds, builder.instances, builder.nodes)
                    .discard(previous);
            if (refused.cause instanceof StartupException opening) {
                throw opening;
            }
            throw (ConfigurationException) refused.cause;
        }
    }

    /** Carries a checked failure out through the factories' {@link RouteContext.Children} calls, unwrapped. */
    private static final class Refused extends RuntimeException {
        final Exception cause;

        Refused(Exception cause) {
            super(cause.getMessage(), null, false, false);
            this.cause = cause;
        }
    }

    private static final class Builder {
        private final RouteDeclarations declared;
        private final String defaultType;
        private final Settings all;
        private final Map<String, RouteFactory> nodeTypes;
        private final Opener opener;
        private final ScheduledExecutorService scheduler;
        private final GatewayMetrics metrics;
        private final RouteTree previous;
        /** Every route and instance built so far, by name: a node named twice is built once. */
        private final Map<String, Route> built = new LinkedHashMap<>();
        private final Map<String, String> kinds = new HashMap<>();
        private final Map<Instance, BackendRoute> instances = new LinkedHashMap<>();
        /** The names being built, outermost first: a name met again among them is a loop. */
        private final Set<String> path = new LinkedHashSet<>();
        private final Map<String, Node> nodes = new LinkedHashMap<>();

        /** Counts a node's work after its answer until it completes ({@link RouteContext.Background}). */
        private static void track(LongAdder background, CompletionStage<?> work) {
            background.increment();
            work.whenComplete((result, error) -> background.decrement());
        }

        Builder(RouteDeclarations declared, String defaultType, Settings all, Map<String, RouteFactory> nodeTypes,
                Opener opener, ScheduledExecutorService scheduler, GatewayMetrics metrics, RouteTree previous) {
            this.declared = declared;
            this.defaultType = defaultType;
            this.previous = previous;
            this.all = all;
            this.nodeTypes = nodeTypes;
            this.opener = opener;
            this.scheduler = scheduler;
            this.metrics = metrics;
        }

        Route route(String name, String namedBy) {
            Route done = built.get(name);
            if (done != null) {
                return done;
            }
            if (path.contains(name)) {
                throw new Refused(new ConfigurationException("the route tree loops: " + String.join(" -> ", path)
                        + " -> " + name));
            }
            Route route;
            if (declared.routes().containsKey(name)) {
                route = node(name);
                kinds.put(name, "route " + declared.routes().get(name));
            } else if (declared.backends().containsKey(name) || name.equals(DEFAULT_BACKEND)) {
                Instance instance = instance(name);
                BackendRoute kept = previous == null ? null : previous.instances.get(instance);
                try {
                    BackendRoute opened = kept != null ? kept : opener.open(instance);
                    instances.put(instance, opened);
                    route = opened;
                } catch (StartupException e) {
                    throw new Refused(e);
                }
                kinds.put(name, "backend " + instance.type());
            } else {
                throw new Refused(new ConfigurationException(namedBy + ": no route or backend instance named '"
                        + name + "'; routes: " + declared.routes().keySet() + ", backends: "
                        + new TreeSet<>(withDefault(declared.backends().keySet()))));
            }
            built.put(name, route);
            return route;
        }

        private Instance instance(String name) {
            boolean legacy = name.equals(DEFAULT_BACKEND);
            String type = legacy ? defaultType : declared.backends().get(name);
            Settings settings = legacy ? all.under(type + ".") : all.under(BACKENDS + name + ".");
            Map<String, String> values = new HashMap<>(settings.asMap());
            if (!legacy) {
                values.remove(TYPE);
            }
            return new Instance(name, type, values);
        }

        private Route node(String name) {
            String type = declared.routes().get(name);
            Settings settings = all.under(ROUTES + name + ".");
            Route kept = kept(name, type, settings.asMap());
            if (kept != null) {
                return kept;
            }
            RouteFactory factory = nodeTypes.get(type);
            List<String> children = new ArrayList<>();
            LongAdder background = new LongAdder();
            path.add(name);
            try {
                RouteContext context = new RouteContext(name, settings, child -> {
                    children.add(child);
                    return route(child, ROUTES + name);
                }, scheduler, counter -> metrics.routeCounter(name, counter), work -> track(background, work));
                Route route = factory.build(context);
                if (route == null) {
                    throw new IllegalArgumentException("the node type built no route");
                }
                nodes.put(name, new Node(route, type, settings.asMap(), List.copyOf(children), background));
                return route;
            } catch (Refused refused) {
                throw refused;
            } catch (RuntimeException | LinkageError e) {
                throw new Refused(new ConfigurationException(ROUTES + name + " (type " + type + "): "
                        + e.getMessage()));
            } finally {
                path.remove(name);
            }
        }

        /**
         * The previous tree's node of this name, when its type and settings are unchanged and each child it resolved
         * resolves to the same route now (built first, as the node would have); else null.
         */
        private Route kept(String name, String type, Map<String, String> settings) {
            Node before = previous == null ? null : previous.nodes.get(name);
            if (before == null || !before.type().equals(type) || !before.settings().equals(settings)) {
                return null;
            }
            path.add(name);
            try {
                boolean same = true;
                for (String child : before.children()) {
                    same &= route(child, ROUTES + name) == previous.named.get(child);
                }
                if (!same) {
                    return null;
                }
            } finally {
                path.remove(name);
            }
            nodes.put(name, before);
            return before.route();
        }

        private static Set<String> withDefault(Set<String> names) {
            Set<String> all = new LinkedHashSet<>(names);
            all.add(DEFAULT_BACKEND);
            return all;
        }
    }
}
