package kvgate.config;

import java.util.List;
import java.util.Map;
import kvgate.spi.Setting;

/**
 * The configuration keys of the gateway as a whole: its backend and routes, its limits, its network threads, and its
 * operators' ports. Each protocol declares its own keys (its {@code Protocol}), the collections and the counter store
 * theirs, and backend plugins theirs, configured as {@code <type>.<key>}.
 */
public final class GatewaySettings {
    public static final String BACKEND = "backend";
    public static final String ROUTE = "route";
    public static final String PLUGINS_DIR = "plugins.dir";
    public static final String MAX_ITEM_SIZE = "max_item_size";
    public static final String MAX_CONNECTIONS = "max_connections";
    public static final String MAX_INFLIGHT = "max_inflight";
    public static final String IDLE_TIMEOUT_S = "idle_timeout_s";
    public static final String REQUEST_TIMEOUT_S = "request_timeout_s";
    public static final String READ_BUDGET = "read_budget";
    public static final String IO_THREADS = "io_threads";
    public static final String IO_TRANSPORT = "io_transport";
    public static final String SOCKET_MODE = "socket_mode";
    public static final String SCAN_DIRECTORY = "scan.directory";
    public static final String ADMIN_ENABLE = "admin.enable";
    public static final String ADMIN_BIND = "admin.bind";
    public static final String ADMIN_PORT = "admin.port";
    public static final String ADMIN = "admin";
    public static final String METRICS = "metrics";
    public static final String METRICS_ENABLE = "metrics.enable";
    public static final String METRICS_BIND = "metrics.bind";
    public static final String METRICS_PORT = "metrics.port";
    public static final String METRICS_LOOP_LAG_MS = "metrics.loop_lag_ms";

    /** These keys, in the order docs/configuration.md lists them. */
    public static final List<Setting> ALL = List.of(
            Setting.text(BACKEND, "local", "the backend type to store data in (a loaded backend plugin's type); "
                    + "with routes, the backend instance named default"),
            Setting.text(ROUTE, "", "the root of the route tree: a route or backend instance name (empty: every "
                    + "request goes to the backend of 'backend')"),
            Setting.text(PLUGINS_DIR, "plugins",
                    "comma-separated plugin directories; relative ones are under the gateway's home directory"),
            Setting.size(MAX_ITEM_SIZE, "1m", 1024, 512L << 20, "largest value stored, in bytes"),
            Setting.integer(MAX_CONNECTIONS, 4096, 0, 1_000_000,
                    "client connections held at once over all listeners; more are closed at once (0: no limit)"),
            Setting.integer(MAX_INFLIGHT, 1024, 1, 1_000_000,
                    "requests of one connection awaiting replies before the gateway stops reading from it"),
            Setting.integer(IDLE_TIMEOUT_S, 0, 0, 86_400 * 30,
                    "close a client connection idle this many seconds (0: never); never a counter connection"),
            Setting.integer(REQUEST_TIMEOUT_S, 30, 0, 86_400,
                    "seconds a request may take to arrive whole, from its first byte to its last; a client still "
                            + "sending one then is disconnected, however steadily its bytes trickle in (0: no "
                            + "limit)"),
            Setting.size(READ_BUDGET, "0", 0, Long.MAX_VALUE, "bytes all connections' partly read requests may "
                    + "hold together; past it, the connections waiting longest mid-request get their protocol's "
                    + "out-of-memory error and are closed (0: a quarter of the JVM's direct memory limit)"),
            Setting.integer(IO_THREADS, 0, 0, 1024, "network threads (0: two per core)"),
            Setting.choice(IO_TRANSPORT, "auto", "how the network threads do their I/O: epoll, io_uring or nio "
                    + "(auto: epoll where available, else nio)", "auto", "epoll", "io_uring", "nio"),
            Setting.text(SOCKET_MODE, "0700",
                    "permissions of the listeners' Unix domain sockets, in octal, as memcached's -a (0700: this "
                            + "user only; 0770: its group too; 0777: anyone on the host)"),
            Setting.choice(SCAN_DIRECTORY, "except_default",
                    "on a backend that cannot list a namespace's keys (memcached), the namespaces whose keys the "
                            + "gateway lists so that scans (MPDB GETBUCKET) work: all, except_default (every "
                            + "namespace but the one plain memcached clients use), none",
                    "all", "except_default", "none"),
            Setting.bool(ADMIN_ENABLE, false, "serve the admin port (explain, reload, routes, stats)"),
            Setting.text(ADMIN_BIND, "127.0.0.1", "address of the admin listener; anyone who reaches it can reload "
                    + "the configuration, so keep it on loopback or a management network"),
            Setting.integer(ADMIN_PORT, 11299, 0, 65535, "admin port (0: any free port)"),
            allow(ADMIN, "connect"),
            tls(ADMIN),
            Setting.bool(METRICS_ENABLE, false, "serve the meters over HTTP for Prometheus to scrape (GET /metrics)"),
            Setting.text(METRICS_BIND, "127.0.0.1", "address of the metrics listener"),
            Setting.integer(METRICS_PORT, 11298, 0, 65535, "metrics port (0: any free port)"),
            allow(METRICS, "connect"),
            tls(METRICS),
            Setting.integer(METRICS_LOOP_LAG_MS, 10, 0, 60_000,
                    "how often each network thread is probed for how late it runs its work, in ms (0: never)"));

    /**
     * Keys that meant something once and no longer do, with what replaced them. Left empty, as a configuration
     * written for an older gateway has them, they are accepted and ignored; given a value, they stop the start
     * with the replacement, where an unknown key would only be named.
     */
    public static final Map<String, String> RETIRED = Map.of(
            "filters", "operation filters became route nodes: a RouteFactory plugin, named in the route tree, sees "
                    + "every operation that reaches it and may change, answer or count it");

    private GatewaySettings() {
    }

    /** The key of a listener's access list. */
    public static String allowKey(String listener) {
        return listener + ".allow";
    }

    /** The key of a listener's TLS switch. */
    public static String tlsKey(String listener) {
        return listener + ".tls";
    }

    /** A listener's access list, {@code <listener>.allow}: the client networks it takes. */
    public static Setting allow(String listener, String what) {
        return Setting.text(allowKey(listener), "", "client networks that may " + what + " to the " + listener
                + " listener: comma-separated IPv4 or IPv6 addresses and CIDR blocks (10.0.0.0/8, ::1); others are "
                + "refused before anything is read (empty: any)");
    }

    /** A listener's TLS switch, {@code <listener>.tls}. */
    public static Setting tls(String listener) {
        return Setting.bool(tlsKey(listener), false, "serve the " + listener + " listener over TLS only (tls.cert, "
                + "tls.key), on TCP and on its Unix socket");
    }
}
