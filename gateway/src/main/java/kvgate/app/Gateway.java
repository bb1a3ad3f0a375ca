package kvgate.app;

import io.netty.channel.Channel;
import io.netty.handler.codec.LineBasedFrameDecoder;
import io.netty.handler.codec.string.StringDecoder;
import io.netty.handler.codec.string.StringEncoder;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicReference;
import kvgate.admin.AdminCommands;
import kvgate.admin.AdminConnection;
import kvgate.admin.PrometheusEndpoint;
import kvgate.collections.BucketManifests;
import kvgate.collections.CollectionsSettings;
import kvgate.config.Configuration;
import kvgate.config.ConfigurationException;
import kvgate.config.GatewaySettings;
import kvgate.config.StartupException;
import kvgate.counter.CounterProtocol;
import kvgate.dispatch.Dispatcher;
import kvgate.metrics.GatewayMetrics;
import kvgate.net.GatewayVersion;
import kvgate.net.HttpAnswer;
import kvgate.net.ListenerTls;
import kvgate.net.Listeners;
import kvgate.net.NetworkThreads;
import kvgate.net.Protocol;
import kvgate.net.ProtocolContext;
import kvgate.net.ReadBudget;
import kvgate.net.Transport;
import kvgate.net.UnixSockets;
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
 * A running gateway. Start-up goes in the order of dependence and stops at the first problem with a message that
 * names it: the gateway's settings, plugins, every configuration key (now that plugins have declared theirs), the
 * route tree and its backends, the dispatcher, the collections manifests, then each protocol that is turned on, and
 * the operators' ports. Shutdown goes the other way and makes acknowledged writes durable before returning.
 *
 * <p>{@link #reload} reads the configuration again and puts a new route tree in force without dropping a client
 * connection; everything else the configuration says takes effect only at a restart, so a reload that changes it
 * is refused.
 */
public final class Gateway implements AutoCloseable, AdminCommands.Gateway {
    private static final Logger LOG = LoggerFactory.getLogger(Gateway.class);
    /** How long start-up waits for the buckets' manifests before serving without them (answering 0086). */
    private static final long MANIFEST_LOAD_WAIT_MILLIS = 10_000;
    /** Connections held at once on each operators' listener (admin, metrics): operators and their scripts. */
    private static final int ADMIN_CONNECTIONS = 64;
    private static final int ADMIN_MAX_LINE = 4096;

    private final PluginCatalog plugins;
    private final Configuration.Source source;
    /** Runs admin commands, one at a time, off the network threads (a reload opens backends). */
    private final ExecutorService adminThread = singleDaemonThread("kvgate-admin");
    private final AtomicReference<RouteTree> routes = new AtomicReference<>();
    /** Every setting in force, resolved. */
    private final AtomicReference<Settings> inForce = new AtomicReference<>();
    /** How each protocol that has namespaces names them, for the admin port's explain. */
    private final Map<String, Protocol.Naming> namings = new LinkedHashMap<>();
    // Made in the order of start-up; on a failed start, close() closes what was made.
    private GatewayMetrics metrics;
    private NetworkThreads threads;
    private Backends backends;
    private Backend counters;
    private Dispatcher dispatcher;
    private RouteReloads reloads;
    private BucketManifests manifests;
    private Listeners listeners;

    private Gateway(PluginCatalog plugins, Configuration.Source source) {
        this.plugins = plugins;
        this.source = source;
    }

    /** One thread running tasks in order; a daemon, so that it never holds the process up at exit. */
    static ExecutorService singleDaemonThread(String name) {
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
    public static Gateway start(Configuration given, Path home) throws ConfigurationException, StartupException {
        return start(() -> given, home);
    }

    /**
     * Starts a gateway whose configuration can be read again by {@link #reload}.
     *
     * @param home the installation directory; relative plugin directories are resolved against it
     */
    public static Gateway start(Configuration.Source source, Path home)
            throws ConfigurationException, StartupException {
        Configuration configuration = source.read().withAliases(Protocols.aliases());
        Settings settings = configuration.resolve(Protocols.settings());
        for (Protocol protocol : Protocols.ALL) {
            protocol.check(settings);
        }
        Gateway gateway = new Gateway(PluginCatalog.load(pluginDirectories(settings, home)), source);
        try {
            gateway.open(configuration, settings);
            return gateway;
        } catch (ConfigurationException | StartupException | RuntimeException e) {
            gateway.close();
            throw e;
        }
    }

    /** The plugin directories {@code plugins.dir} names, relative ones under {@code home}. */
    static List<Path> pluginDirectories(Settings settings, Path home) {
        List<Path> directories = new ArrayList<>();
        for (String entry : settings.text(GatewaySettings.PLUGINS_DIR).split(",")) {
            if (!entry.isBlank()) {
                directories.add(home.resolve(entry.strip()));
            }
        }
        return directories;
    }

    private void open(Configuration configuration, Settings settings)
            throws ConfigurationException, StartupException {
        RouteDeclarations declared = RouteDeclarations.of(configuration);
        Map<String, RouteFactory> nodeTypes = Backends.nodeTypes(plugins);
        Settings all = Backends.resolveAll(configuration, plugins, declared, nodeTypes);
        inForce.set(all);
        Clock clock = Clock.systemUTC();
        metrics = GatewayMetrics.forPrometheus();
        threads = new NetworkThreads(settings.intValue(GatewaySettings.IO_THREADS),
                Transport.of(settings.text(GatewaySettings.IO_TRANSPORT)));
        threads.probeLag(metrics.loopLag(), settings.integer(GatewaySettings.METRICS_LOOP_LAG_MS));
        backends = new Backends(plugins, settings, clock, threads.workers());
        routes.set(RouteTree.build(settings.text(GatewaySettings.ROUTE), settings.text(GatewaySettings.BACKEND),
                declared, all, nodeTypes, backends::leaf, threads.workers(), metrics, null));
        if (settings.bool(CounterProtocol.ENABLE)) {
            counters = backends.counterStore(all, routes.get().instances());
        }
        dispatcher = new Dispatcher(routes.get().root(), counters, metrics, threads.workers());
        reloads = new RouteReloads(plugins, backends, counters, routes, inForce, dispatcher, threads.workers(),
                metrics);
        manifests = new BucketManifests(CollectionsSettings.buckets(settings), dispatcher,
                CollectionsSettings.limits(settings), settings.integer(CollectionsSettings.REFRESH_MS),
                threads.workers());
        manifests.start(MANIFEST_LOAD_WAIT_MILLIS);
        List<String> withSockets = Protocols.ALL.stream().map(Protocol::name)
                .filter(name -> settings.asMap().containsKey(UnixSockets.key(name))).toList();
        listeners = new Listeners(threads, metrics, UnixSockets.of(settings, withSockets),
                settings.intValue(GatewaySettings.MAX_CONNECTIONS),
                ReadBudget.of(settings.size(GatewaySettings.READ_BUDGET)), ListenerTls.of(settings));
        ProtocolContext context = new ProtocolContext(settings, dispatcher, listeners, metrics, clock, manifests,
                () -> routes.get().instances(), inForce::get, counters);
        List<Protocol> served = new ArrayList<>();
        for (Protocol protocol : Protocols.ALL) {
            // Whether or not it is served: explain names its namespaces either way.
            Protocol.Naming naming = protocol.naming(context);
            if (naming != null) {
                namings.put(protocol.name(), naming);
            }
            if (settings.bool(Protocol.enableKey(protocol.name()))) {
                served.add(protocol);
            }
        }
        warnOfOpenListeners(served, settings);
        for (Protocol protocol : served) {
            protocol.start(context);
        }
        String listening = listeners.describe();
        LOG.info("kvgate {} started: {}, {} network threads ({}){}", GatewayVersion.VERSION,
                describe(routes.get().instances()), threads.threads(), threads.transport(),
                listening.isEmpty() ? "" : ", " + listening);
        openOperatorPorts(settings);
    }

    /** The admin port and the metrics port, when turned on. */
    private void openOperatorPorts(Settings settings) throws StartupException {
        if (settings.bool(GatewaySettings.ADMIN_ENABLE)) {
            AdminCommands commands = new AdminCommands(this);
            Channel admin = listeners.listenBeside(GatewaySettings.ADMIN, settings.text(GatewaySettings.ADMIN_BIND),
                    settings.intValue(GatewaySettings.ADMIN_PORT), 0, ADMIN_CONNECTIONS,
                    Listeners.accessList(GatewaySettings.ADMIN, settings),
                    listeners.tls(GatewaySettings.ADMIN, settings),
                    pipeline -> pipeline.addLast(new LineBasedFrameDecoder(ADMIN_MAX_LINE))
                            .addLast(new StringDecoder(StandardCharsets.UTF_8))
                            .addLast(new StringEncoder(StandardCharsets.UTF_8))
                            .addLast(new AdminConnection(commands, adminThread)));
            LOG.info("admin port on {}", admin.localAddress());
        }
        if (settings.bool(GatewaySettings.METRICS_ENABLE)) {
            Channel scraped = listeners.listenBeside(GatewaySettings.METRICS,
                    settings.text(GatewaySettings.METRICS_BIND),
                    settings.intValue(GatewaySettings.METRICS_PORT), HttpAnswer.IDLE_SECONDS, ADMIN_CONNECTIONS,
                    Listeners.accessList(GatewaySettings.METRICS, settings),
                    listeners.tls(GatewaySettings.METRICS, settings),
                    HttpAnswer.pipeline(() -> new PrometheusEndpoint(metrics.prometheus(),
                            () -> routes.get().instances(), adminThread)));
            InetSocketAddress address = (InetSocketAddress) scraped.localAddress();
            LOG.info("metrics for Prometheus on http://{}:{}{}", address.getHostString(), address.getPort(),
                    PrometheusEndpoint.PATH);
        }
    }

    /**
     * When a protocol asks its connections to authenticate (a password file on the memcached port), warns of the
     * others that serve the same stores without asking who is there, unless they listen on loopback alone.
     */
    private static void warnOfOpenListeners(List<Protocol> served, Settings settings) {
        List<String> guarded = new ArrayList<>();
        List<String> open = new ArrayList<>();
        for (Protocol protocol : served) {
            String bind = protocol.name() + ".bind";
            if (protocol.authenticates(settings)) {
                guarded.add(protocol.name());
            } else if (!loopback(settings.text(bind))) {
                open.add(bind + " = " + settings.text(bind));
            }
        }
        if (!guarded.isEmpty() && !open.isEmpty()) {
            LOG.warn("{}.sasl_pwdb protects the {} port only; these listeners have no authentication and are open "
                    + "beyond this host: {}. Bind them to loopback or a trusted network, or turn them off",
                    guarded.get(0), guarded.get(0), open);
        }
    }

    private static boolean loopback(String bind) {
        try {
            return InetAddress.getByName(bind).isLoopbackAddress();
        } catch (UnknownHostException e) {
            return false;
        }
    }

    private static String describe(List<BackendRoute> instances) {
        List<String> described = new ArrayList<>();
        for (BackendRoute instance : instances) {
            described.add("backend " + instance.name() + " (" + instance.type() + ", capabilities "
                    + instance.backend().capabilities() + ")");
        }
        return String.join(", ", described);
    }

    /** How the network threads do their I/O ({@code io_transport}, resolved). */
    public Transport transport() {
        return threads.transport();
    }

    /**
     * The port a listener is bound to (useful with port 0): a protocol's by its name ({@code memcached},
     * {@code counter}, {@code okuyama}, {@code mpdb}), or {@code admin}, {@code metrics}, {@code management}.
     *
     * @throws IllegalStateException when that listener is not bound
     */
    public int port(String listener) {
        return listeners.port(listener);
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
    public int treesRetiring() {
        return reloads.retiring();
    }

    public BucketManifests manifests() {
        return manifests;
    }

    @Override
    public Map<String, Protocol.Naming> namings() {
        return namings;
    }

    @Override
    public String version() {
        return GatewayVersion.VERSION;
    }

    /**
     * Reads the configuration again and puts its route tree in force (see {@link RouteReloads#reload}).
     *
     * @return what changed, in one line
     */
    @Override
    public synchronized String reload() throws ConfigurationException, StartupException {
        // One at a time (the admin port and SIGHUP may ask together), each reading the configuration it applies.
        Configuration configuration = source.read().withAliases(Protocols.aliases());
        // The certificate is read and checked first, and put in force only with the route tree: a reload refused
        // for either leaves both as they were.
        ListenerTls.Prepared certificate = listeners.tls().prepare(configuration.resolve(Protocols.settings()));
        String summary = reloads.reload(configuration);
        listeners.tls().install(certificate);
        return summary + (certificate.context() == null ? "" : "; TLS certificate read again");
    }

    /** Stops listening, closes client connections, then closes the backends (committing what they acknowledged). */
    @Override
    public void close() {
        // First, so that no admin command is left writing to a connection whose event loop is gone.
        adminThread.shutdownNow();
        if (listeners != null) {
            listeners.close();
        }
        if (manifests != null) {
            manifests.close();
        }
        if (threads != null) {
            threads.close();
        }
        if (reloads != null) {
            reloads.close();
        } else {
            RouteReloads.closeAll(routes.get(), counters);
        }
        plugins.close();
        if (metrics != null) {
            metrics.close();
        }
        LOG.info("kvgate stopped");
    }
}
