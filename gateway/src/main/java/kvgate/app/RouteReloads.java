package kvgate.app;

import io.netty.channel.EventLoopGroup;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import kvgate.config.Configuration;
import kvgate.config.ConfigurationException;
import kvgate.config.GatewaySettings;
import kvgate.config.StartupException;
import kvgate.counter.CounterProtocol;
import kvgate.counterstore.CounterStoreSettings;
import kvgate.dispatch.Dispatcher;
import kvgate.metrics.GatewayMetrics;
import kvgate.plugins.PluginCatalog;
import kvgate.route.BackendRoute;
import kvgate.route.RouteDeclarations;
import kvgate.route.RouteTree;
import kvgate.spi.Backend;
import kvgate.spi.RouteFactory;
import kvgate.spi.Settings;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reloads of the route tree: a new tree put in force without dropping a client connection, and the trees it replaced
 * closed once the operations started on them have finished.
 */
final class RouteReloads {
    private static final Logger LOG = LoggerFactory.getLogger(RouteReloads.class);
    /**
     * How long a replaced route tree waits for its operations in flight before its nodes and dropped instances are
     * closed anyway: far above any backend's timeout, so only an operation that will never finish is cut short.
     */
    private static final long DRAIN_LIMIT_MILLIS = 30_000;

    private final PluginCatalog plugins;
    private final Backends backends;
    private final Backend counters;
    private final AtomicReference<RouteTree> routes;
    /** Every setting in force, resolved, to tell what a reload would change. */
    private final AtomicReference<Settings> inForce;
    private final Dispatcher dispatcher;
    private final EventLoopGroup workers;
    private final GatewayMetrics metrics;
    /** Replaced trees not yet closed, oldest first; closed one after another by {@link #retirements}. */
    private final Set<RouteTree> retiring = new LinkedHashSet<>();
    private final ExecutorService retirements = Gateway.singleDaemonThread("kvgate-retire");

    /**
     * @param counters the counter store, which may be an instance of the tree too; null when there is none
     * @param routes the tree in force, which a reload replaces
     * @param inForce the settings in force, which a reload replaces
     * @param workers the network threads, on which route nodes run their timers
     */
    RouteReloads(PluginCatalog plugins, Backends backends, Backend counters, AtomicReference<RouteTree> routes,
                 AtomicReference<Settings> inForce, Dispatcher dispatcher, EventLoopGroup workers,
                 GatewayMetrics metrics) {
        this.plugins = plugins;
        this.backends = backends;
        this.counters = counters;
        this.routes = routes;
        this.inForce = inForce;
        this.dispatcher = dispatcher;
        this.workers = workers;
        this.metrics = metrics;
    }

    /** Trees a reload replaced and that are not closed yet. */
    synchronized int retiring() {
        return retiring.size();
    }

    /**
     * Puts the route tree of {@code configuration} in force: backend instances whose type and settings are unchanged
     * are kept with their connections, new or changed ones are opened, and the tree replaced is closed once the
     * operations started on it have finished (instances it alone held with it). Client connections stay open
     * throughout, and every operation runs whole on one tree or the other.
     *
     * <p>Only the route tree can change this way: {@code route}, {@code backend}, {@code routes.*},
     * {@code backends.*} and backend plugins' {@code <type>.*} settings. A configuration that is invalid, fails to
     * open an instance, or changes anything else (a port, a limit, the counter store) is refused with a message
     * naming the problem, and the tree in force stays.
     *
     * @return what changed, in one line
     */
    synchronized String reload(Configuration configuration) throws ConfigurationException, StartupException {
        Settings gateway = configuration.resolve(Protocols.settings());
        List<String> added = plugins.loadAdded();
        if (!added.isEmpty()) {
            LOG.info("plugins added: {}", added);
        }
        RouteDeclarations declared = RouteDeclarations.of(configuration);
        Map<String, RouteFactory> nodeTypes = Backends.nodeTypes(plugins);
        Settings all = Backends.resolveAll(configuration, plugins, declared, nodeTypes);
        List<String> fixed = changedOnlyAtRestart(inForce.get(), all);
        if (!fixed.isEmpty()) {
            throw new ConfigurationException("a reload changes only the route tree; these settings differ from the "
                    + "ones in force and take effect only at a restart: " + String.join("; ", fixed));
        }
        if (added.isEmpty() && all.asMap().equals(inForce.get().asMap())) {
            // Nothing to build: the nodes run on undisturbed (a warm-up's backfill keeps its place).
            LOG.info("configuration reloaded: unchanged, the route tree in force is kept");
            return "unchanged; the route tree in force is kept";
        }
        RouteTree previous = routes.get();
        RouteTree next = RouteTree.build(gateway.text(GatewaySettings.ROUTE), gateway.text(GatewaySettings.BACKEND),
                declared, all, nodeTypes, backends::leaf, workers, metrics, previous);
        for (BackendRoute instance : previous.instances()) {
            if (instance.backend() == counters && !next.instances().contains(instance)) {
                next.discard(previous);
                throw new ConfigurationException("backend instance " + instance.name() + " also keeps the counters "
                        + "(counter.store); it can change only at a restart");
            }
        }
        Dispatcher.Generation replaced = dispatcher.swap(next.root());
        routes.set(next);
        inForce.set(all);
        // At once, not when the retirement thread gets to it after earlier trees: no node of the replaced tree starts
        // work of its own from now on.
        previous.retiring(next);
        retiring.add(previous);
        retirements.execute(() -> retire(previous, next, replaced));
        String summary = describeChange(previous, next) + (added.isEmpty() ? "" : "; plugins added " + added);
        LOG.info("configuration reloaded: {}", summary);
        return summary;
    }

    /**
     * Waits for the operations in flight on a replaced tree and the work its nodes go on with after their answers,
     * then closes what the tree in force does not hold.
     */
    private void retire(RouteTree replaced, RouteTree successor, Dispatcher.Generation generation) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(DRAIN_LIMIT_MILLIS);
        while ((generation.unfinished() > 0 || replaced.background(successor) > 0) && System.nanoTime() < deadline) {
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
        if (generation.unfinished() > 0 || replaced.background(successor) > 0) {
            LOG.warn("{} operations and {} requests of nodes' own still unfinished on the replaced route tree after "
                    + "{} ms; closing it anyway", generation.unfinished(), replaced.background(successor),
                    DRAIN_LIMIT_MILLIS);
        }
        synchronized (this) {
            if (retiring.remove(replaced)) {
                replaced.retire(successor);
            }
        }
    }

    /**
     * The settings that differ between two resolved configurations and that a reload cannot change: all but the
     * route tree's, and, with a counter store of a backend type, that type's settings too.
     */
    private List<String> changedOnlyAtRestart(Settings before, Settings after) {
        Map<String, String> old = before.asMap();
        Map<String, String> now = after.asMap();
        Set<String> keys = new TreeSet<>(old.keySet());
        keys.addAll(now.keySet());
        Set<String> gatewayKeys = new HashSet<>();
        Protocols.settings().forEach(setting -> gatewayKeys.add(setting.key()));
        String counterStore = old.get(CounterStoreSettings.STORE);
        boolean separateCounterStore = Boolean.parseBoolean(old.get(CounterProtocol.ENABLE))
                && !CounterStoreSettings.MEMORY.equals(counterStore);
        List<String> changed = new ArrayList<>();
        for (String key : keys) {
            if (Objects.equals(old.get(key), now.get(key))) {
                continue;
            }
            boolean tree = key.equals(GatewaySettings.ROUTE) || key.equals(GatewaySettings.BACKEND)
                    || key.startsWith("routes.") || key.startsWith("backends.");
            boolean backendType = !gatewayKeys.contains(key) && plugins.backends().keySet().stream()
                    .anyMatch(type -> key.startsWith(type + ".")
                            && !(separateCounterStore && type.equals(counterStore)));
            if (!tree && !backendType) {
                // Shown as stats shows them: the refusal goes to the admin port and the log, never a password.
                changed.add(key + " (" + before.shown().getOrDefault(key, "unset") + " -> "
                        + after.shown().getOrDefault(key, "unset") + ")");
            }
        }
        return changed;
    }

    private static String describeChange(RouteTree previous, RouteTree next) {
        List<String> kept = new ArrayList<>();
        List<String> opened = new ArrayList<>();
        List<String> closing = new ArrayList<>();
        for (BackendRoute instance : next.instances()) {
            (previous.instances().contains(instance) ? kept : opened).add(instance.name());
        }
        for (BackendRoute instance : previous.instances()) {
            if (!next.instances().contains(instance)) {
                closing.add(instance.name());
            }
        }
        return "route tree replaced; nodes kept " + next.nodesKeptFrom(previous) + ", built "
                + next.nodesBuiltSince(previous) + "; backend instances kept " + kept + ", opened " + opened
                + ", closed once idle " + closing;
    }

    /** Closes every tree not yet retired, and the tree in force with the counter store. */
    void close() {
        retirements.shutdownNow();
        synchronized (this) {
            // Read under the lock a reload holds: a reload under way puts its tree in force before close gets here.
            RouteTree inForce = routes.get();
            for (RouteTree replaced : retiring) {
                replaced.retire(inForce);
            }
            retiring.clear();
            closeAll(inForce, counters);
        }
    }

    /** Closes every node and backend instance of a tree, and the counter store, which may be one of them. */
    static void closeAll(RouteTree tree, Backend counters) {
        boolean countersClosed = false;
        if (tree != null) {
            tree.retire(null);
            for (BackendRoute instance : tree.instances()) {
                countersClosed |= instance.backend() == counters;
            }
        }
        if (!countersClosed) {
            Backends.closeQuietly(counters);
        }
    }
}
