package kvgate.server;

import io.netty.channel.Channel;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.security.SecureRandom;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import kvgate.config.Configuration;
import kvgate.config.ConfigurationException;
import kvgate.collections.BucketManifests;
import kvgate.collections.ManifestLimits;
import kvgate.config.GatewaySettings;
import kvgate.dispatch.BackendRoute;
import kvgate.dispatch.Dispatcher;
import kvgate.counter.CounterFrameDecoder;
import kvgate.counter.CounterResponseEncoder;
import kvgate.counter.CounterStats;
import kvgate.counter.CounterTranslator;
import kvgate.counter.MemoryCounterStore;
import kvgate.memcached.BinaryFrameDecoder;
import kvgate.memcached.BinaryResponseEncoder;
import kvgate.memcached.BinaryTranslator;
import kvgate.memcached.MemcachedStats;
import kvgate.metrics.GatewayMetrics;
import kvgate.mpdb.MpdbDatagramHandler;
import kvgate.mpdb.MpdbNamespaces;
import kvgate.mpdb.MpdbTranslator;
import kvgate.okuyama.OkuyamaLineDecoder;
import kvgate.okuyama.OkuyamaReplyEncoder;
import kvgate.okuyama.OkuyamaTranslator;
import kvgate.plugins.PluginCatalog;
import kvgate.route.RouteTree;
import kvgate.spi.Backend;
import kvgate.spi.Namespace;
import kvgate.spi.BackendContext;
import kvgate.spi.BackendFactory;
import kvgate.spi.Capability;
import kvgate.spi.OperationFilter;
import kvgate.spi.Route;
import kvgate.spi.RouteFactory;
import kvgate.spi.Setting;
import kvgate.spi.Settings;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A running gateway. Start-up goes in the order of dependence and stops at the first problem with a message that
 * names it: gateway settings, plugins, every configuration key (now that plugins have declared theirs), the
 * backend, the listeners. Shutdown goes the other way and makes acknowledged writes durable before returning.
 */
public final class Gateway implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Gateway.class);
    /** How long start-up waits for the buckets' manifests before serving without them (answering 0086). */
    private static final long MANIFEST_LOAD_WAIT_MILLIS = 10_000;

    static final String MEMCACHED = "memcached";
    static final String OKUYAMA = "okuyama";

    private final PluginCatalog plugins;
    private final List<BackendRoute> instances;
    private final Backend counters;
    private final NetworkThreads threads;
    private final ChannelGroup listeners;
    private final GatewayMetrics metrics;
    private final Channel memcached;
    private final Channel counter;
    private final Channel okuyama;
    private final Channel mpdb;
    private final MpdbDatagramHandler mpdbHandler;
    private final BucketManifests manifests;
    private final Dispatcher dispatcher;

    private Gateway(PluginCatalog plugins, List<BackendRoute> instances, Backend counters, NetworkThreads threads,
                    ChannelGroup listeners, GatewayMetrics metrics, Channel memcached, Channel counter,
                    Channel okuyama, Channel mpdb, MpdbDatagramHandler mpdbHandler, BucketManifests manifests,
                    Dispatcher dispatcher) {
        this.plugins = plugins;
        this.instances = instances;
        this.counters = counters;
        this.threads = threads;
        this.listeners = listeners;
        this.metrics = metrics;
        this.memcached = memcached;
        this.counter = counter;
        this.okuyama = okuyama;
        this.mpdb = mpdb;
        this.mpdbHandler = mpdbHandler;
        this.manifests = manifests;
        this.dispatcher = dispatcher;
    }

    /**
     * Starts a gateway.
     *
     * @param home the installation directory; relative plugin directories are resolved against it
     */
    public static Gateway start(Configuration given, Path home)
            throws ConfigurationException, StartupException {
        Configuration configuration = given.withAliases(GatewaySettings.ALIASES);
        Settings gateway = configuration.resolve(GatewaySettings.ALL);
        List<Path> pluginDirectories = new ArrayList<>();
        for (String entry : gateway.text(GatewaySettings.PLUGINS_DIR).split(",")) {
            if (!entry.isBlank()) {
                pluginDirectories.add(home.resolve(entry.strip()));
            }
        }
        PluginCatalog plugins = PluginCatalog.load(pluginDirectories);
        List<BackendRoute> instances = new ArrayList<>();
        Backend counters = null;
        NetworkThreads threads = null;
        BucketManifests manifests = null;
        try {
            String type = gateway.text(GatewaySettings.BACKEND);
            Map<String, RouteFactory> nodeTypes = RouteTree.nodeTypes(extensions(plugins.routes()));
            RouteTree.Declared declared = RouteTree.declare(configuration);
            Settings all = resolveAll(configuration, plugins, declared, nodeTypes);
            List<OperationFilter> filters = filters(gateway.text(GatewaySettings.FILTERS), plugins);
            int maxItemSize = Math.toIntExact(gateway.size(GatewaySettings.MAX_ITEM_SIZE));
            Clock clock = Clock.systemUTC();
            threads = new NetworkThreads(gateway.intValue(GatewaySettings.IO_THREADS));
            EventLoopGroup workers = threads.workers();
            String directoryScope = gateway.text(GatewaySettings.SCAN_DIRECTORY);
            GatewayMetrics metrics = new GatewayMetrics();
            Route routes = RouteTree.build(gateway.text(GatewaySettings.ROUTE), declared, all, nodeTypes, name -> {
                boolean legacy = name.equals(RouteTree.DEFAULT_BACKEND);
                String instanceType = legacy ? type : declared.backends().get(name);
                Settings settings = legacy ? all.under(type + ".") : all.under("backends." + name + ".");
                // The single backend keeps its type as its name, as before there were several.
                Backend backend = open(plugins, legacy ? type : name, instanceType, settings, gateway, clock,
                        maxItemSize, workers, "backend " + (legacy ? "" : name + " "));
                BackendRoute instance = new BackendRoute(name, instanceType, backend, directoryScope);
                instances.add(instance);
                return instance;
            }, workers, metrics);
            boolean counting = gateway.bool(GatewaySettings.COUNTER_ENABLE);
            if (counting) {
                counters = counterStore(gateway, all, plugins, instances, clock, maxItemSize, workers);
            }
            Dispatcher dispatcher = new Dispatcher(routes, counters, filters, metrics, workers);
            long refreshMillis = gateway.integer(GatewaySettings.COLLECTIONS_REFRESH_MS);
            manifests = new BucketManifests(GatewaySettings.buckets(gateway), dispatcher,
                    new ManifestLimits(gateway.intValue(GatewaySettings.COLLECTIONS_MAX_SCOPES),
                            gateway.intValue(GatewaySettings.COLLECTIONS_MAX_COLLECTIONS)),
                    refreshMillis, threads.workers());
            manifests.start(MANIFEST_LOAD_WAIT_MILLIS);
            BucketManifests bucketManifests = manifests;
            ChannelGroup listeners = new DefaultChannelGroup("listeners", GlobalEventExecutor.INSTANCE);
            AtomicInteger openConnections = new AtomicInteger();
            int maxConnections = gateway.intValue(GatewaySettings.MAX_CONNECTIONS);
            int maxInFlight = gateway.intValue(GatewaySettings.MAX_INFLIGHT);
            int idleTimeout = gateway.intValue(GatewaySettings.IDLE_TIMEOUT_S);
            Channel memcached = null;
            if (gateway.bool(GatewaySettings.MEMCACHED_ENABLE)) {
                MemcachedStats stats = new MemcachedStats(metrics, List.copyOf(instances), all, threads.threads());
                BinaryResponseEncoder encoder = new BinaryResponseEncoder();
                long maxFrame = gateway.size(GatewaySettings.MEMCACHED_MAX_FRAME);
                memcached = Listener.bind(threads, MEMCACHED, gateway.text(GatewaySettings.MEMCACHED_BIND),
                        gateway.intValue(GatewaySettings.MEMCACHED_PORT), idleTimeout,
                        new ConnectionGuard(MEMCACHED, maxConnections, openConnections, 0, metrics),
                        pipeline -> pipeline.addLast(new BinaryFrameDecoder(maxItemSize, maxFrame))
                                .addLast(encoder)
                                .addLast(new ProtocolConnection<>(MEMCACHED,
                                        new BinaryTranslator(bucketManifests, clock, stats), dispatcher,
                                        maxInFlight)));
                listeners.add(memcached);
            }
            Channel counter = null;
            if (counting) {
                CounterStats stats = new CounterStats(metrics, counters);
                CounterResponseEncoder encoder = new CounterResponseEncoder();
                // Owners must be unique among every gateway sharing a counter store: a random instance id per
                // process, then a sequence number per connection.
                String instance = Long.toHexString(new SecureRandom().nextLong());
                AtomicLong connectionNumbers = new AtomicLong();
                counter = Listener.bind(threads, CounterStats.PROTOCOL, gateway.text(GatewaySettings.COUNTER_BIND),
                        gateway.intValue(GatewaySettings.COUNTER_PORT), idleTimeout,
                        new ConnectionGuard(CounterStats.PROTOCOL, maxConnections, openConnections,
                                gateway.intValue(GatewaySettings.COUNTER_MAX_CONNECTIONS), metrics),
                        pipeline -> pipeline.addLast(new CounterFrameDecoder())
                                .addLast(encoder)
                                .addLast(new ProtocolConnection<>(CounterStats.PROTOCOL,
                                        new CounterTranslator(instance + "/" + connectionNumbers.incrementAndGet(),
                                                stats), dispatcher, maxInFlight)));
                listeners.add(counter);
            }
            Channel okuyama = null;
            if (gateway.bool(GatewaySettings.OKUYAMA_ENABLE)) {
                OkuyamaReplyEncoder encoder = new OkuyamaReplyEncoder();
                Namespace okuyamaNamespace = parsed(gateway, GatewaySettings.OKUYAMA_NAMESPACE, Namespace::new);
                int maxLine = (int) Math.min(Integer.MAX_VALUE - 8, gateway.size(GatewaySettings.OKUYAMA_MAX_LINE));
                okuyama = Listener.bind(threads, OKUYAMA, gateway.text(GatewaySettings.OKUYAMA_BIND),
                        gateway.intValue(GatewaySettings.OKUYAMA_PORT), idleTimeout,
                        new ConnectionGuard(OKUYAMA, maxConnections, openConnections, 0, metrics),
                        pipeline -> pipeline.addLast(new OkuyamaLineDecoder(maxLine))
                                .addLast(encoder)
                                .addLast(new ProtocolConnection<>(OKUYAMA,
                                        new OkuyamaTranslator(okuyamaNamespace, dispatcher, clock, maxItemSize),
                                        dispatcher, maxInFlight)));
                listeners.add(okuyama);
            }
            Channel mpdb = null;
            MpdbDatagramHandler mpdbHandler = null;
            if (gateway.bool(GatewaySettings.MPDB_ENABLE)) {
                MpdbNamespaces namespaces = parsed(gateway, GatewaySettings.MPDB_NAMESPACE_PREFIX,
                        MpdbNamespaces::new);
                int maxDatagram = Math.toIntExact(gateway.size(GatewaySettings.MPDB_MAX_DATAGRAM));
                // No reply datagram holds more pairs than it has bytes, so a scan never needs more.
                MpdbTranslator translator = new MpdbTranslator(namespaces, dispatcher, maxDatagram);
                mpdbHandler = new MpdbDatagramHandler(translator, metrics, maxDatagram,
                        gateway.intValue(GatewaySettings.MPDB_WINDOW),
                        gateway.integer(GatewaySettings.MPDB_SERVER_TIMEOUT_MS),
                        Duration.ofSeconds(gateway.integer(GatewaySettings.MPDB_CLIENT_EXPIRY_S)),
                        gateway.size(GatewaySettings.MPDB_CLIENT_MEMORY));
                mpdb = Listener.bindDatagram(threads, MpdbDatagramHandler.PROTOCOL,
                        gateway.text(GatewaySettings.MPDB_BIND), gateway.intValue(GatewaySettings.MPDB_PORT),
                        maxDatagram, mpdbHandler);
                listeners.add(mpdb);
            }
            LOG.info("kvgate {} started: {}, {} network threads ({}){}", GatewayVersion.VERSION,
                    describe(instances), threads.threads(),
                    threads.transport(), (memcached == null ? "" : ", memcached binary on " + memcached.localAddress())
                            + (counter == null ? "" : ", counter protocol on " + counter.localAddress())
                            + (okuyama == null ? "" : ", okuyama on " + okuyama.localAddress())
                            + (mpdb == null ? "" : ", MPDB on " + mpdb.localAddress() + " (UDP)"));
            return new Gateway(plugins, List.copyOf(instances), counters, threads, listeners, metrics, memcached,
                    counter, okuyama, mpdb, mpdbHandler, manifests, dispatcher);
        } catch (ConfigurationException | StartupException | RuntimeException e) {
            if (manifests != null) {
                manifests.close();
            }
            if (threads != null) {
                threads.close();
            }
            closeAll(instances, counters);
            plugins.close();
            throw e;
        }
    }

    /**
     * The counter store named by {@code counter.store}: the built-in memory store, the single backend itself when it
     * is of that type and keeps counters too, or another instance of a backend plugin that does.
     */
    private static Backend counterStore(Settings gateway, Settings all, PluginCatalog plugins,
                                        List<BackendRoute> instances, Clock clock, int maxItemSize,
                                        EventLoopGroup eventLoops) throws StartupException {
        String store = gateway.text(GatewaySettings.COUNTER_STORE);
        if (store.equals(GatewaySettings.MEMORY_COUNTER_STORE)) {
            return new MemoryCounterStore(clock, gateway.integer(GatewaySettings.COUNTER_STATS_INTERVAL),
                    gateway.intValue(GatewaySettings.COUNTER_BUCKETS));
        }
        Backend data = null;
        for (BackendRoute instance : instances) {
            if (instance.name().equals(RouteTree.DEFAULT_BACKEND) && instance.type().equals(store)) {
                data = instance.backend();
            }
        }
        if (data == null && !plugins.backends().containsKey(store)) {
            throw new StartupException("counter.store = " + store + ": no such backend type; types found: "
                    + plugins.backends().keySet() + ", or " + GatewaySettings.MEMORY_COUNTER_STORE);
        }
        Backend counters = data != null ? data : open(plugins, store, store, all.under(store + "."), gateway, clock,
                maxItemSize, eventLoops, "counter store ");
        if (!counters.capabilities().contains(Capability.COUNTERS)) {
            if (counters != data) {
                closeQuietly(counters);
            }
            throw new StartupException("counter.store = " + store + ": that backend keeps no counters (it does not "
                    + "declare Capability.COUNTERS); use " + GatewaySettings.MEMORY_COUNTER_STORE);
        }
        return counters;
    }

    /**
     * Opens a backend instance of a loaded plugin, giving it its own settings (without their prefix) and the
     * gateway's counter settings a counter store reads (see {@link BackendContext#settings()}).
     *
     * @param what how messages name the instance ("backend orders ", "counter store ")
     */
    private static Backend open(PluginCatalog plugins, String name, String type, Settings settings,
                                Settings gateway, Clock clock, int maxItemSize, EventLoopGroup eventLoops,
                                String what) throws StartupException {
        PluginCatalog.Found<BackendFactory> factory = plugins.backends().get(type);
        if (factory == null) {
            throw new StartupException(what + "of type '" + type + "': no backend plugin of that type; types found: "
                    + plugins.backends().keySet());
        }
        Map<String, String> values = new HashMap<>(settings.asMap());
        values.put(BackendContext.COUNTER_LEASE_MS, gateway.text(GatewaySettings.COUNTER_LEASE_MS));
        values.put(BackendContext.COUNTER_STATS_INTERVAL, gateway.text(GatewaySettings.COUNTER_STATS_INTERVAL));
        Backend backend;
        try {
            backend = factory.extension().open(new BackendContext(name, new Settings(values), clock, maxItemSize,
                    eventLoops));
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

    private static String describe(List<BackendRoute> instances) {
        List<String> described = new ArrayList<>();
        for (BackendRoute instance : instances) {
            described.add("backend " + instance.name() + " (" + instance.type() + ", capabilities "
                    + instance.backend().capabilities() + ")");
        }
        return String.join(", ", described);
    }

    private static <T> Map<String, T> extensions(Map<String, PluginCatalog.Found<T>> found) {
        Map<String, T> extensions = new LinkedHashMap<>();
        found.forEach((name, extension) -> extensions.put(name, extension.extension()));
        return extensions;
    }

    /** A setting's text made into what it names; a refusal (IllegalArgumentException) names the key and value. */
    private static <T> T parsed(Settings settings, String key, Function<String, T> parse)
            throws ConfigurationException {
        String text = settings.text(key);
        try {
            return parse.apply(text);
        } catch (IllegalArgumentException e) {
            throw new ConfigurationException(key + " = " + text + ": " + e.getMessage());
        }
    }

    /**
     * Every configuration key, checked: the gateway's own, each loaded backend type's as {@code <type>.<key>}, and
     * each configured backend instance's and route's as {@code backends.<name>.<key>} and {@code routes.<name>.<key>}.
     */
    private static Settings resolveAll(Configuration configuration, PluginCatalog plugins,
                                       RouteTree.Declared declared, Map<String, RouteFactory> nodeTypes)
            throws ConfigurationException {
        List<Setting> declaredSettings = new ArrayList<>(GatewaySettings.ALL);
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
        configuration.rejectUnknown(known);
        return configuration.resolve(declaredSettings);
    }

    private static List<OperationFilter> filters(String names, PluginCatalog plugins) throws StartupException {
        List<OperationFilter> filters = new ArrayList<>();
        for (String name : names.split(",")) {
            if (name.isBlank()) {
                continue;
            }
            PluginCatalog.Found<OperationFilter> filter = plugins.filters().get(name.strip());
            if (filter == null) {
                throw new StartupException("no filter plugin named '" + name.strip() + "'; filters found: "
                        + plugins.filters().keySet());
            }
            filters.add(filter.extension());
        }
        return filters;
    }

    /** The port the memcached listener is bound to (useful with {@code memcached.port = 0}). */
    public int memcachedPort() {
        return port(memcached, GatewaySettings.MEMCACHED_ENABLE);
    }

    /** The port the okuyama listener is bound to. */
    public int okuyamaPort() {
        return port(okuyama, GatewaySettings.OKUYAMA_ENABLE);
    }

    /** The UDP port the MPDB listener is bound to. */
    public int mpdbPort() {
        return port(mpdb, GatewaySettings.MPDB_ENABLE);
    }

    /** MPDB clients whose ordering state the gateway holds now. */
    public long mpdbClients() {
        port(mpdb, GatewaySettings.MPDB_ENABLE);
        return mpdbHandler.clients();
    }

    /** The port the counter listener is bound to. */
    public int counterPort() {
        return port(counter, GatewaySettings.COUNTER_ENABLE);
    }

    private static int port(Channel listener, String enable) {
        if (listener == null) {
            throw new IllegalStateException("that listener is disabled (" + enable + " = false)");
        }
        return ((InetSocketAddress) listener.localAddress()).getPort();
    }

    public GatewayMetrics metrics() {
        return metrics;
    }

    /** Where every protocol's operations go; also the way in for operations no listener speaks yet. */
    public Dispatcher dispatcher() {
        return dispatcher;
    }

    /** Stops listening, closes client connections, then closes the backend (committing what it acknowledged). */
    @Override
    public void close() {
        listeners.close().awaitUninterruptibly();
        manifests.close();
        threads.close();
        closeAll(instances, counters);
        plugins.close();
        LOG.info("kvgate stopped");
    }

    /** Closes every backend instance and the counter store, which may be one of them. */
    private static void closeAll(List<BackendRoute> instances, Backend counters) {
        boolean countersClosed = false;
        for (BackendRoute instance : instances) {
            closeQuietly(instance.backend());
            countersClosed |= instance.backend() == counters;
        }
        if (!countersClosed) {
            closeQuietly(counters);
        }
    }

    private static void closeQuietly(Backend backend) {
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
