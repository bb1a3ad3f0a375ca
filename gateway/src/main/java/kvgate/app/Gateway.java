package kvgate.app;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.handler.codec.LineBasedFrameDecoder;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.string.StringDecoder;
import io.netty.handler.codec.string.StringEncoder;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;
import kvgate.admin.AdminCommands;
import kvgate.admin.AdminConnection;
import kvgate.admin.PrometheusEndpoint;
import kvgate.collections.BucketManifests;
import kvgate.collections.ManifestLimits;
import kvgate.config.Configuration;
import kvgate.config.ConfigurationException;
import kvgate.config.GatewaySettings;
import kvgate.config.StartupException;
import kvgate.counter.CounterFrameDecoder;
import kvgate.counter.CounterResponseEncoder;
import kvgate.counter.CounterStats;
import kvgate.counter.CounterTranslator;
import kvgate.counterstore.MemoryCounterStore;
import kvgate.dispatch.Dispatcher;
import kvgate.memcached.BinaryTranslator;
import kvgate.memcached.MemcachedStats;
import kvgate.memcached.binary.BinaryFrameDecoder;
import kvgate.memcached.binary.BinaryResponseEncoder;
import kvgate.memcached.couchbase.ClusterConfig;
import kvgate.memcached.couchbase.ManagementEndpoint;
import kvgate.memcached.couchbase.SaslUsers;
import kvgate.metrics.GatewayMetrics;
import kvgate.mpdb.MpdbDatagramHandler;
import kvgate.mpdb.MpdbNamespaces;
import kvgate.mpdb.MpdbTranslator;
import kvgate.net.ConnectionGuard;
import kvgate.net.GatewayVersion;
import kvgate.net.Listener;
import kvgate.net.NetworkThreads;
import kvgate.net.ProtocolConnection;
import kvgate.net.Transport;
import kvgate.net.UnixSockets;
import kvgate.okuyama.OkuyamaLineDecoder;
import kvgate.okuyama.OkuyamaReplyEncoder;
import kvgate.okuyama.OkuyamaTranslator;
import kvgate.plugins.PluginCatalog;
import kvgate.route.BackendRoute;
import kvgate.route.RouteTree;
import kvgate.spi.Backend;
import kvgate.spi.BackendContext;
import kvgate.spi.BackendFactory;
import kvgate.spi.Capability;
import kvgate.spi.Namespace;
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
 *
 * <p>{@link #reload} reads the configuration again and puts a new route tree in force without dropping a client
 * connection; everything else the configuration says takes effect only at a restart, so a reload that changes it
 * is refused.
 */
public final class Gateway implements AutoCloseable, AdminCommands.Gateway {
    private static final Logger LOG = LoggerFactory.getLogger(Gateway.class);
    /** How long start-up waits for the buckets' manifests before serving without them (answering 0086). */
    private static final long MANIFEST_LOAD_WAIT_MILLIS = 10_000;
    /**
     * How long a replaced route tree waits for its operations in flight before its nodes and dropped instances are
     * closed anyway: far above any backend's timeout, so only an operation that will never finish is cut short.
     */
    private static final long DRAIN_LIMIT_MILLIS = 30_000;

    static final String MEMCACHED = MemcachedStats.PROTOCOL;
    static final String OKUYAMA = "okuyama";
    static final String ADMIN = "admin";
    static final String METRICS = "metrics";
    static final String MANAGEMENT = "management";
    /**
     * A connection to an HTTP listener (metrics, management) idle this long is closed: Prometheus scrapes every few
     * seconds and an SDK asks when it waits, and either reconnects.
     */
    private static final int HTTP_IDLE_SECONDS = 300;
    /** What the HTTP listeners serve are GETs of one path (with basic authentication): nothing longer is needed. */
    private static final int HTTP_MAX_REQUEST = 8192;
    /** Connections held at once on each operators' listener (admin, metrics): operators and their scripts. */
    private static final int ADMIN_CONNECTIONS = 64;
    private static final int ADMIN_MAX_LINE = 4096;

    private final PluginCatalog plugins;
    private final Reloading reloading;
    private final AtomicReference<RouteTree> routes;
    /** Replaced trees not yet closed, oldest first; closed one after another by {@link #retirements}. */
    private final Set<RouteTree> retiring = new LinkedHashSet<>();
    private final ExecutorService retirements;
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
    private final Namespace okuyamaNamespace;
    private final MpdbNamespaces mpdbNamespaces;
    /** Runs admin commands, one at a time, off the network threads (a reload opens backends). */
    private final ExecutorService adminThread;
    private Channel admin;
    private Channel metricsListener;
    private Channel management;

    /**
     * What a reload needs of the start: where the configuration comes from, the settings in force (to tell what
     * changed), and what opens backend instances.
     */
    private static final class Reloading {
        private final Configuration.Source source;
        private final RouteTree.Opener opener;
        /** Every setting in force, resolved. */
        private final AtomicReference<Settings> inForce;

        Reloading(Configuration.Source source, RouteTree.Opener opener, AtomicReference<Settings> inForce) {
            this.source = source;
            this.opener = opener;
            this.inForce = inForce;
        }
    }

    private Gateway(PluginCatalog plugins, Reloading reloading, AtomicReference<RouteTree> routes, Backend counters,
                    NetworkThreads threads, ChannelGroup listeners, GatewayMetrics metrics, Channel memcached,
                    Channel counter, Channel okuyama, Channel mpdb, MpdbDatagramHandler mpdbHandler,
                    BucketManifests manifests, Dispatcher dispatcher, Namespace okuyamaNamespace,
                    MpdbNamespaces mpdbNamespaces) {
        this.okuyamaNamespace = okuyamaNamespace;
        this.mpdbNamespaces = mpdbNamespaces;
        this.adminThread = singleDaemonThread("kvgate-admin");
        this.plugins = plugins;
        this.reloading = reloading;
        this.routes = routes;
        this.retirements = singleDaemonThread("kvgate-retire");
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

    /** One thread running tasks in order; a daemon, so that it never holds the process up at exit. */
    private static ExecutorService singleDaemonThread(String name) {
        return Executors.newSingleThreadExecutor(runnable -> {
            Thread thread = new Thread(runnable, name);
            thread.setDaemon(true);
            return thread;
        });
    }

    /**
     * Starts a gateway.
     *
     * @param home the installation directory; relative plugin directories are resolved against it
     */
    public static Gateway start(Configuration given, Path home)
            throws ConfigurationException, StartupException {
        return start(() -> given, home);
    }

    /**
     * Starts a gateway whose configuration can be read again by {@link #reload}.
     *
     * @param home the installation directory; relative plugin directories are resolved against it
     */
    public static Gateway start(Configuration.Source source, Path home)
            throws ConfigurationException, StartupException {
        Configuration configuration = source.read().withAliases(GatewaySettings.ALIASES);
        Settings gateway = configuration.resolve(GatewaySettings.ALL);
        if (gateway.bool(GatewaySettings.MEMCACHED_MGMT_ENABLE) && !gateway.bool(GatewaySettings.MEMCACHED_ENABLE)) {
            throw new ConfigurationException(GatewaySettings.MEMCACHED_MGMT_ENABLE + " = true: the management port "
                    + "serves the memcached port's Couchbase clients, and " + GatewaySettings.MEMCACHED_ENABLE
                    + " = false");
        }
        List<Path> pluginDirectories = new ArrayList<>();
        for (String entry : gateway.text(GatewaySettings.PLUGINS_DIR).split(",")) {
            if (!entry.isBlank()) {
                pluginDirectories.add(home.resolve(entry.strip()));
            }
        }
        PluginCatalog plugins = PluginCatalog.load(pluginDirectories);
        AtomicReference<RouteTree> routes = new AtomicReference<>();
        Backend counters = null;
        NetworkThreads threads = null;
        BucketManifests manifests = null;
        GatewayMetrics metrics = null;
        // Once made, the gateway closes all it holds itself when a later step of the start fails.
        Gateway opened = null;
        try {
            String type = gateway.text(GatewaySettings.BACKEND);
            Map<String, RouteFactory> nodeTypes = RouteTree.nodeTypes(extensions(plugins.routes()));
            RouteTree.Declared declared = RouteTree.declare(configuration);
            Settings all = resolveAll(configuration, plugins, declared, nodeTypes);
            List<OperationFilter> filters = filters(gateway.text(GatewaySettings.FILTERS), plugins);
            int maxItemSize = Math.toIntExact(gateway.size(GatewaySettings.MAX_ITEM_SIZE));
            Clock clock = Clock.systemUTC();
            threads = new NetworkThreads(gateway.intValue(GatewaySettings.IO_THREADS),
                    Transport.of(gateway.text(GatewaySettings.IO_TRANSPORT)));
            EventLoopGroup workers = threads.workers();
            String directoryScope = gateway.text(GatewaySettings.SCAN_DIRECTORY);
            metrics = GatewayMetrics.forPrometheus();
            threads.probeLag(metrics.loopLag(), gateway.integer(GatewaySettings.METRICS_LOOP_LAG_MS));
            RouteTree.Opener opener = instance -> {
                boolean legacy = instance.name().equals(RouteTree.DEFAULT_BACKEND);
                // The single backend keeps its type as its name, as before there were several.
                Backend backend = open(plugins, legacy ? instance.type() : instance.name(), instance.type(),
                        new Settings(instance.settings()), gateway, clock, maxItemSize, workers,
                        "backend " + (legacy ? "" : instance.name() + " "));
                return new BackendRoute(instance.name(), instance.type(), backend, directoryScope);
            };
            routes.set(RouteTree.build(gateway.text(GatewaySettings.ROUTE), type, declared, all, nodeTypes, opener,
                    workers, metrics, null));
            boolean counting = gateway.bool(GatewaySettings.COUNTER_ENABLE);
            if (counting) {
                counters = counterStore(gateway, all, plugins, routes.get().instances(), clock, maxItemSize,
                        workers);
            }
            Dispatcher dispatcher = new Dispatcher(routes.get().root(), counters, filters, metrics, workers);
            AtomicReference<Settings> inForce = new AtomicReference<>(all);
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
            UnixSockets sockets = UnixSockets.of(gateway);
            boolean serveMemcached = gateway.bool(GatewaySettings.MEMCACHED_ENABLE);
            String pwdb = gateway.text(GatewaySettings.MEMCACHED_SASL_PWDB);
            // The users of the memcached port, and of its management port.
            SaslUsers users = !serveMemcached || pwdb.isEmpty() ? null : SaslUsers.read(Path.of(pwdb));
            Channel memcached = null;
            if (serveMemcached) {
                MemcachedStats stats = new MemcachedStats(metrics, () -> routes.get().instances(), inForce::get,
                        threads.threads());
                BinaryResponseEncoder encoder = new BinaryResponseEncoder();
                long maxFrame = gateway.size(GatewaySettings.MEMCACHED_MAX_FRAME);
                if (users != null) {
                    warnOfOpenListeners(gateway);
                }
                int mgmtPort = gateway.intValue(GatewaySettings.MEMCACHED_MGMT_PORT);
                int advertisedPort = gateway.intValue(GatewaySettings.MEMCACHED_ADVERTISED_PORT);
                // Asked at each HELLO, of the tree in force then: a reload may bring or take such a backend.
                BooleanSupplier keepsExpiry = () -> routes.get().instances().stream()
                        .anyMatch(instance -> instance.backend().capabilities().contains(Capability.KEEP_EXPIRY));
                ConnectionGuard guard = new ConnectionGuard(MEMCACHED, maxConnections, openConnections, 0, metrics);
                // The port the cluster map names: the one this connection reached, or for a connection on the Unix
                // socket, the TCP listener's (an SDK given the map connects over TCP).
                AtomicInteger tcpPort = new AtomicInteger();
                Consumer<ChannelPipeline> handlers = pipeline -> pipeline
                        .addLast(new BinaryFrameDecoder(maxItemSize, maxFrame))
                        .addLast(new ProtocolConnection<>(MEMCACHED,
                                new BinaryTranslator(bucketManifests, clock, stats, users,
                                        new ClusterConfig(advertisedPort(advertisedPort,
                                                pipeline.channel().localAddress() instanceof InetSocketAddress local
                                                        ? local.getPort() : tcpPort.get()), mgmtPort),
                                        dispatcher, maxItemSize, keepsExpiry),
                                encoder, dispatcher, maxInFlight));
                memcached = Listener.bind(threads, MEMCACHED, gateway.text(GatewaySettings.MEMCACHED_BIND),
                        gateway.intValue(GatewaySettings.MEMCACHED_PORT), idleTimeout, guard, handlers);
                tcpPort.set(port(memcached, GatewaySettings.MEMCACHED_ENABLE));
                listeners.add(memcached);
                sockets.listen(threads, MEMCACHED, GatewaySettings.MEMCACHED_SOCKET, idleTimeout, guard, handlers,
                        listeners);
            }
            Channel counter = null;
            if (counting) {
                CounterStats stats = new CounterStats(metrics, counters);
                CounterResponseEncoder encoder = new CounterResponseEncoder();
                // Owners must be unique among every gateway sharing a counter store: a random instance id per
                // process, then a sequence number per connection.
                String instance = Long.toHexString(new SecureRandom().nextLong());
                AtomicLong connectionNumbers = new AtomicLong();
                // Never closed for being idle: a connection's holdings last as long as it does, and a client that
                // holds a lock quietly must not lose it to the timeout meant for idle cache clients.
                ConnectionGuard guard = new ConnectionGuard(CounterStats.PROTOCOL, maxConnections, openConnections,
                        gateway.intValue(GatewaySettings.COUNTER_MAX_CONNECTIONS), metrics);
                Consumer<ChannelPipeline> handlers = pipeline -> pipeline.addLast(new CounterFrameDecoder())
                        .addLast(new ProtocolConnection<>(CounterStats.PROTOCOL,
                                new CounterTranslator(instance + "/" + connectionNumbers.incrementAndGet(), stats),
                                encoder, dispatcher, maxInFlight));
                counter = Listener.bind(threads, CounterStats.PROTOCOL, gateway.text(GatewaySettings.COUNTER_BIND),
                        gateway.intValue(GatewaySettings.COUNTER_PORT), 0, guard, handlers);
                listeners.add(counter);
                sockets.listen(threads, CounterStats.PROTOCOL, GatewaySettings.COUNTER_SOCKET, 0, guard, handlers,
                        listeners);
            }
            // Parsed whether or not their listeners run: explain names their namespaces either way.
            Namespace okuyamaNamespace = parsed(gateway, GatewaySettings.OKUYAMA_NAMESPACE, Namespace::new);
            MpdbNamespaces namespaces = parsed(gateway, GatewaySettings.MPDB_NAMESPACE_PREFIX, MpdbNamespaces::new);
            Channel okuyama = null;
            if (gateway.bool(GatewaySettings.OKUYAMA_ENABLE)) {
                OkuyamaReplyEncoder encoder = new OkuyamaReplyEncoder();
                int maxLine = (int) Math.min(Integer.MAX_VALUE - 8, gateway.size(GatewaySettings.OKUYAMA_MAX_LINE));
                ConnectionGuard guard = new ConnectionGuard(OKUYAMA, maxConnections, openConnections, 0, metrics);
                Consumer<ChannelPipeline> handlers = pipeline -> pipeline.addLast(new OkuyamaLineDecoder(maxLine))
                        .addLast(new ProtocolConnection<>(OKUYAMA,
                                new OkuyamaTranslator(okuyamaNamespace, dispatcher, clock, maxItemSize),
                                encoder, dispatcher, maxInFlight));
                okuyama = Listener.bind(threads, OKUYAMA, gateway.text(GatewaySettings.OKUYAMA_BIND),
                        gateway.intValue(GatewaySettings.OKUYAMA_PORT), idleTimeout, guard, handlers);
                listeners.add(okuyama);
                sockets.listen(threads, OKUYAMA, GatewaySettings.OKUYAMA_SOCKET, idleTimeout, guard, handlers,
                        listeners);
            }
            Channel mpdb = null;
            MpdbDatagramHandler mpdbHandler = null;
            if (gateway.bool(GatewaySettings.MPDB_ENABLE)) {
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
                    describe(routes.get().instances()), threads.threads(),
                    threads.transport(), (memcached == null ? "" : ", memcached binary on " + memcached.localAddress())
                            + (counter == null ? "" : ", counter protocol on " + counter.localAddress())
                            + (okuyama == null ? "" : ", okuyama on " + okuyama.localAddress())
                            + (mpdb == null ? "" : ", MPDB on " + mpdb.localAddress() + " (UDP)")
                            + sockets.describe());
            Gateway started = new Gateway(plugins, new Reloading(source, opener, inForce), routes,
                    counters, threads, listeners, metrics, memcached, counter, okuyama, mpdb, mpdbHandler, manifests,
                    dispatcher, okuyamaNamespace, namespaces);
            opened = started;
            if (gateway.bool(GatewaySettings.ADMIN_ENABLE)) {
                started.admin = operatorListener(started, ADMIN, gateway.text(GatewaySettings.ADMIN_BIND),
                        gateway.intValue(GatewaySettings.ADMIN_PORT), 0,
                        pipeline -> pipeline.addLast(new LineBasedFrameDecoder(ADMIN_MAX_LINE))
                                .addLast(new StringDecoder(StandardCharsets.UTF_8))
                                .addLast(new StringEncoder(StandardCharsets.UTF_8))
                                .addLast(new AdminConnection(new AdminCommands(started), started.adminThread)));
                LOG.info("admin port on {}", started.admin.localAddress());
            }
            if (gateway.bool(GatewaySettings.METRICS_ENABLE)) {
                PrometheusMeterRegistry prometheus = metrics.prometheus();
                started.metricsListener = operatorListener(started, METRICS, gateway.text(GatewaySettings.METRICS_BIND),
                        gateway.intValue(GatewaySettings.METRICS_PORT), HTTP_IDLE_SECONDS,
                        http(() -> new PrometheusEndpoint(prometheus, () -> routes.get().instances(),
                                started.adminThread)));
                InetSocketAddress scraped = (InetSocketAddress) started.metricsListener.localAddress();
                LOG.info("metrics for Prometheus on http://{}:{}{}", scraped.getHostString(), scraped.getPort(),
                        PrometheusEndpoint.PATH);
            }
            if (gateway.bool(GatewaySettings.MEMCACHED_MGMT_ENABLE)) {
                // The map names the memcached port as that port's own map does: the advertised one, else the one its
                // listener took.
                int mgmtPort = gateway.intValue(GatewaySettings.MEMCACHED_MGMT_PORT);
                int kvPort = advertisedPort(gateway.intValue(GatewaySettings.MEMCACHED_ADVERTISED_PORT),
                        started.memcachedPort());
                ClusterConfig cluster = new ClusterConfig(kvPort, mgmtPort);
                String bind = gateway.text(GatewaySettings.MEMCACHED_MGMT_BIND);
                // Every SDK instance opens its own connections here (a few each, closed when idle): as many as the
                // protocols' clients may hold, counted apart from them.
                started.management = auxiliaryListener(started, MANAGEMENT,
                        bind.isEmpty() ? gateway.text(GatewaySettings.MEMCACHED_BIND) : bind, mgmtPort,
                        HTTP_IDLE_SECONDS, maxConnections, http(() -> new ManagementEndpoint(bucketManifests, users,
                                cluster)));
                InetSocketAddress served = (InetSocketAddress) started.management.localAddress();
                LOG.info("Couchbase management port (waitUntilReady) on http://{}:{}{}<bucket>",
                        served.getHostString(), served.getPort(), ManagementEndpoint.BUCKETS_PATH);
            }
            return started;
        } catch (ConfigurationException | StartupException | RuntimeException e) {
            if (opened != null) {
                opened.close();
                throw e;
            }
            if (manifests != null) {
                manifests.close();
            }
            if (threads != null) {
                threads.close();
            }
            closeAll(routes.get(), counters);
            plugins.close();
            if (metrics != null) {
                metrics.close();
            }
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

    /**
     * A listener for operators (the admin port, the metrics port): few connections, counted apart from clients', and
     * closed with the gateway's other listeners.
     */
    private static Channel operatorListener(Gateway started, String name, String host, int port, int idleSeconds,
                                            Consumer<ChannelPipeline> handlers) throws StartupException {
        return auxiliaryListener(started, name, host, port, idleSeconds, ADMIN_CONNECTIONS, handlers);
    }

    /**
     * A listener beside the protocols' (the operators', the Couchbase management port): its connections counted
     * apart from clients' up to {@code limit}, and closed with the gateway's other listeners.
     */
    private static Channel auxiliaryListener(Gateway started, String name, String host, int port, int idleSeconds,
                                             int limit, Consumer<ChannelPipeline> handlers) throws StartupException {
        Channel listener = Listener.bind(started.threads, name, host, port, idleSeconds,
                new ConnectionGuard(name, limit, new AtomicInteger(), 0, started.metrics), handlers);
        started.listeners.add(listener);
        return listener;
    }

    /**
     * The memcached port Couchbase clients are told to use: {@code memcached.advertised_port}, or, when it is 0, the
     * port they reached.
     */
    private static int advertisedPort(int advertised, int reached) {
        return advertised != 0 ? advertised : reached;
    }

    /** The pipeline of an HTTP listener: a request whole, then {@code endpoint}, a new one per connection. */
    private static Consumer<ChannelPipeline> http(Supplier<ChannelHandler> endpoint) {
        return pipeline -> pipeline.addLast(new HttpServerCodec()).addLast(new HttpObjectAggregator(HTTP_MAX_REQUEST))
                .addLast(endpoint.get());
    }

    /**
     * With a password file, warns of the listeners that serve the same stores without asking who is there: the
     * okuyama, MPDB and counter protocols have no authentication of their own, so a password on the memcached port
     * protects nothing they reach, unless they listen on loopback alone.
     */
    private static void warnOfOpenListeners(Settings gateway) {
        List<String> open = new ArrayList<>();
        String[][] listeners = {{GatewaySettings.OKUYAMA_ENABLE, GatewaySettings.OKUYAMA_BIND},
                {GatewaySettings.MPDB_ENABLE, GatewaySettings.MPDB_BIND},
                {GatewaySettings.COUNTER_ENABLE, GatewaySettings.COUNTER_BIND}};
        for (String[] listener : listeners) {
            String bind = gateway.text(listener[1]);
            if (gateway.bool(listener[0]) && !loopback(bind)) {
                open.add(listener[1] + " = " + bind);
            }
        }
        if (!open.isEmpty()) {
            LOG.warn("{} protects the memcached port only; these listeners have no authentication and are open "
                    + "beyond this host: {}. Bind them to loopback or a trusted network, or turn them off",
                    GatewaySettings.MEMCACHED_SASL_PWDB, open);
        }
    }

    private static boolean loopback(String bind) {
        try {
            return InetAddress.getByName(bind).isLoopbackAddress();
        } catch (UnknownHostException e) {
            return false;
        }
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

    /** How the network threads do their I/O ({@code io_transport}, resolved). */
    public Transport transport() {
        return threads.transport();
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

    @Override
    public GatewayMetrics metrics() {
        return metrics;
    }

    /** Where every protocol's operations go; also the way in for operations no listener speaks yet. */
    public Dispatcher dispatcher() {
        return dispatcher;
    }

    /** The route tree in force. */
    @Override
    public RouteTree routes() {
        return routes.get();
    }

    /** Trees a reload replaced and that are not closed yet: their operations or their nodes' own work go on. */
    public synchronized int treesRetiring() {
        return retiring.size();
    }

    @Override
    public BucketManifests manifests() {
        return manifests;
    }

    @Override
    public Namespace okuyamaNamespace() {
        return okuyamaNamespace;
    }

    @Override
    public MpdbNamespaces mpdbNamespaces() {
        return mpdbNamespaces;
    }

    @Override
    public String version() {
        return GatewayVersion.VERSION;
    }

    /** The port the admin listener is bound to. */
    public int adminPort() {
        return port(admin, GatewaySettings.ADMIN_ENABLE);
    }

    /** The port the metrics listener is bound to. */
    public int metricsPort() {
        return port(metricsListener, GatewaySettings.METRICS_ENABLE);
    }

    /** The port the Couchbase management listener is bound to. */
    public int managementPort() {
        return port(management, GatewaySettings.MEMCACHED_MGMT_ENABLE);
    }

    /**
     * Reads the configuration again and puts its route tree in force: backend instances whose type and settings are
     * unchanged are kept with their connections, new or changed ones are opened, and the tree replaced is closed
     * once the operations started on it have finished (instances it alone held with it). Client connections stay
     * open throughout, and every operation runs whole on one tree or the other.
     *
     * <p>Only the route tree can change this way: {@code route}, {@code backend}, {@code routes.*},
     * {@code backends.*} and backend plugins' {@code <type>.*} settings. A configuration that is invalid, fails to
     * open an instance, or changes anything else (a port, a limit, the counter store) is refused with a message
     * naming the problem, and the tree in force stays.
     *
     * @return what changed, in one line
     */
    @Override
    public synchronized String reload() throws ConfigurationException, StartupException {
        Configuration configuration = reloading.source.read().withAliases(GatewaySettings.ALIASES);
        Settings gateway = configuration.resolve(GatewaySettings.ALL);
        List<String> added = plugins.loadAdded();
        if (!added.isEmpty()) {
            LOG.info("plugins added: {}", added);
        }
        Map<String, RouteFactory> nodeTypes = RouteTree.nodeTypes(extensions(plugins.routes()));
        RouteTree.Declared declared = RouteTree.declare(configuration);
        Settings all = resolveAll(configuration, plugins, declared, nodeTypes);
        List<String> fixed = changedOnlyAtRestart(reloading.inForce.get(), all);
        if (!fixed.isEmpty()) {
            throw new ConfigurationException("a reload changes only the route tree; these settings differ from the "
                    + "ones in force and take effect only at a restart: " + String.join("; ", fixed));
        }
        RouteTree previous = routes.get();
        RouteTree next = RouteTree.build(gateway.text(GatewaySettings.ROUTE), gateway.text(GatewaySettings.BACKEND),
                declared, all, nodeTypes, reloading.opener, threads.workers(), metrics, previous);
        for (BackendRoute instance : previous.instances()) {
            if (instance.backend() == counters && !next.instances().contains(instance)) {
                next.discard(previous);
                throw new ConfigurationException("backend instance " + instance.name() + " also keeps the counters "
                        + "(counter.store); it can change only at a restart");
            }
        }
        Dispatcher.Generation replaced = dispatcher.swap(next.root());
        routes.set(next);
        reloading.inForce.set(all);
        // At once, not when the retirement thread gets to it after earlier trees: no node of the replaced tree starts
        // work of its own from now on.
        previous.retiring();
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
        while ((generation.unfinished() > 0 || replaced.background() > 0) && System.nanoTime() < deadline) {
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
        if (generation.unfinished() > 0 || replaced.background() > 0) {
            LOG.warn("{} operations and {} requests of nodes' own still unfinished on the replaced route tree after "
                    + "{} ms; closing it anyway", generation.unfinished(), replaced.background(), DRAIN_LIMIT_MILLIS);
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
        GatewaySettings.ALL.forEach(setting -> gatewayKeys.add(setting.key()));
        String counterStore = old.get(GatewaySettings.COUNTER_STORE);
        boolean separateCounterStore = Boolean.parseBoolean(old.get(GatewaySettings.COUNTER_ENABLE))
                && !GatewaySettings.MEMORY_COUNTER_STORE.equals(counterStore);
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
        return "route tree replaced; backend instances kept " + kept + ", opened " + opened
                + ", closed once idle " + closing;
    }

    /** Stops listening, closes client connections, then closes the backend (committing what it acknowledged). */
    @Override
    public void close() {
        // First, so that no admin command is left writing to a connection whose event loop is gone.
        adminThread.shutdownNow();
        listeners.close().awaitUninterruptibly();
        manifests.close();
        threads.close();
        retirements.shutdownNow();
        synchronized (this) {
            RouteTree inForce = routes.get();
            for (RouteTree replaced : retiring) {
                replaced.retire(inForce);
            }
            retiring.clear();
            closeAll(inForce, counters);
        }
        plugins.close();
        metrics.close();
        LOG.info("kvgate stopped");
    }

    /** Closes every node and backend instance of a tree, and the counter store, which may be one of them. */
    private static void closeAll(RouteTree tree, Backend counters) {
        boolean countersClosed = false;
        if (tree != null) {
            tree.retire(null);
            for (BackendRoute instance : tree.instances()) {
                countersClosed |= instance.backend() == counters;
            }
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
