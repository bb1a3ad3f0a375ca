package kvgate.app;

import io.netty.channel.EventLoopGroup;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import kvgate.config.Configuration;
import kvgate.config.ConfigurationException;
import kvgate.config.GatewaySettings;
import kvgate.config.StartupException;
import kvgate.counterstore.CounterStoreSettings;
import kvgate.counterstore.MemoryCounterStore;
import kvgate.plugins.PluginCatalog;
import kvgate.route.BackendRoute;
import kvgate.route.RouteDeclarations;
import kvgate.route.RouteTree;
import kvgate.spi.Backend;
import kvgate.spi.BackendContext;
import kvgate.spi.BackendFactory;
import kvgate.spi.Capability;
import kvgate.spi.CounterRules;
import kvgate.spi.RouteFactory;
import kvgate.spi.Setting;
import kvgate.spi.Settings;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the gateway takes from its plugins: backend instances (the route tree's leaves and the counter store), route
 * node types, and with them every configuration key they declare.
 */
final class Backends {
    private static final Logger LOG = LoggerFactory.getLogger(Backends.class);

    private final PluginCatalog plugins;
    private final Settings gateway;
    private final Clock clock;
    private final EventLoopGroup eventLoops;

    /**
     * @param gateway the gateway's own settings, resolved ({@link Protocols#settings()})
     * @param eventLoops the network threads, which backends may run their connections on
     */
    Backends(PluginCatalog plugins, Settings gateway, Clock clock, EventLoopGroup eventLoops) {
        this.plugins = plugins;
        this.gateway = gateway;
        this.clock = clock;
        this.eventLoops = eventLoops;
    }

    /**
     * Every configuration key, checked: the gateway's own, each loaded backend type's as {@code <type>.<key>}, and
     * each configured backend instance's and route's as {@code backends.<name>.<key>} and {@code routes.<name>.<key>}.
     */
    static Settings resolveAll(Configuration configuration, PluginCatalog plugins, RouteDeclarations declared,
                               Map<String, RouteFactory> nodeTypes) throws ConfigurationException {
        List<Setting> declaredSettings = new ArrayList<>(Protocols.settings());
        Map<String, List<Setting>> backendTypes = new LinkedHashMap<>();
        for (var entry : plugins.backends().entrySet()) {
            List<Setting> settings = entry.getValue().extension().settings();
            backendTypes.put(entry.getKey(), settings);
            for (Setting setting : settings) {
                declaredSettings.add(setting.withKey(entry.getKey() + "." + setting.key()));
            }
        }
        declaredSettings.addAll(declared.settings(backendTypes, nodeTypes));
        Set<String> known = new HashSet<>();
        declaredSettings.forEach(setting -> known.add(setting.key()));
        configuration.rejectUnknown(known, GatewaySettings.RETIRED);
        return configuration.resolve(declaredSettings);
    }

    /** The route node types: the gateway's own and the plugins'. */
    static Map<String, RouteFactory> nodeTypes(PluginCatalog plugins) throws ConfigurationException {
        Map<String, RouteFactory> found = new LinkedHashMap<>();
        plugins.routes().forEach((name, extension) -> found.put(name, extension.extension()));
        return RouteTree.nodeTypes(found);
    }

    /** Opens a backend instance of the route tree: its leaf, with the generic layer filling what it lacks. */
    BackendRoute leaf(RouteTree.Instance instance) throws StartupException {
        boolean legacy = instance.name().equals(RouteTree.DEFAULT_BACKEND);
        // The single backend keeps its type as its name, as before there were several.
        Backend backend = open(legacy ? instance.type() : instance.name(), instance.type(),
                new Settings(instance.settings()), "backend " + (legacy ? "" : instance.name() + " "));
        return new BackendRoute(instance.name(), instance.type(), backend,
                gateway.text(GatewaySettings.SCAN_DIRECTORY));
    }

    /**
     * The counter store named by {@code counter.store}: the built-in memory store, the single backend itself when it
     * is of that type and keeps counters too, or another instance of a backend plugin that does.
     *
     * @param all every setting, backend types' too
     */
    Backend counterStore(Settings all, List<BackendRoute> instances) throws StartupException {
        String store = gateway.text(CounterStoreSettings.STORE);
        if (store.equals(CounterStoreSettings.MEMORY)) {
            return new MemoryCounterStore(clock, gateway.integer(CounterStoreSettings.STATS_INTERVAL),
                    gateway.intValue(CounterStoreSettings.BUCKETS));
        }
        Backend data = null;
        for (BackendRoute instance : instances) {
            if (instance.name().equals(RouteTree.DEFAULT_BACKEND) && instance.type().equals(store)) {
                data = instance.backend();
            }
        }
        if (data == null && !plugins.backends().containsKey(store)) {
            throw new StartupException(CounterStoreSettings.STORE + " = " + store + ": no such backend type; types "
                    + "found: " + plugins.backends().keySet() + ", or " + CounterStoreSettings.MEMORY);
        }
        Backend counters = data != null ? data : open(store, store, all.under(store + "."), "counter store ");
        if (!counters.capabilities().contains(Capability.COUNTERS)) {
            if (counters != data) {
                closeQuietly(counters);
            }
            throw new StartupException(CounterStoreSettings.STORE + " = " + store + ": that backend keeps no "
                    + "counters (it does not declare Capability.COUNTERS); use " + CounterStoreSettings.MEMORY);
        }
        return counters;
    }

    /**
     * Opens a backend instance of a loaded plugin, giving it its own settings (without their prefix) and the
     * gateway's counter rules, which a counter store applies.
     *
     * @param what how messages name the instance ("backend orders ", "counter store ")
     */
    private Backend open(String name, String type, Settings settings, String what) throws StartupException {
        PluginCatalog.Found<BackendFactory> factory = plugins.backends().get(type);
        if (factory == null) {
            throw new StartupException(what + "of type '" + type + "': no backend plugin of that type; types found: "
                    + plugins.backends().keySet());
        }
        CounterRules counterRules = new CounterRules(gateway.integer(CounterStoreSettings.STATS_INTERVAL),
                gateway.integer(CounterStoreSettings.LEASE_MS));
        Backend backend;
        try {
            backend = factory.extension().open(new BackendContext(name, settings, clock,
                    Math.toIntExact(gateway.size(GatewaySettings.MAX_ITEM_SIZE)), eventLoops, counterRules));
        } catch (Exception | LinkageError e) {
            throw new StartupException(what + "plugin " + factory.pluginId() + " (type " + type
                    + ") failed to open: " + e.getMessage(), e);
        }
        if (backend == null) {
            throw new StartupException(what + "plugin " + factory.pluginId() + " (type " + type
                    + ") opened no backend");
        }
        return backend;
    }

    /** Closes a backend, logging rather than throwing what goes wrong. */
    static void closeQuietly(Backend backend) {
        if (backend == null) {
            return;
        }
        try {
            backend.close();
        } catch (Exception e) {
            LOG.error("backend did not close cleanly", e);
        }
    }
}
