package kvgate.config;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import kvgate.spi.Setting;
import kvgate.spi.Settings;

/** The gateway's own configuration keys. Backend plugins declare theirs, configured as {@code <type>.<key>}. */
public final class GatewaySettings {
    public static final String BACKEND = "backend";
    public static final String ROUTE = "route";
    public static final String PLUGINS_DIR = "plugins.dir";
    public static final String FILTERS = "filters";
    public static final String MAX_ITEM_SIZE = "max_item_size";
    public static final String MAX_CONNECTIONS = "max_connections";
    public static final String MAX_INFLIGHT = "max_inflight";
    public static final String IDLE_TIMEOUT_S = "idle_timeout_s";
    public static final String IO_THREADS = "io_threads";
    public static final String IO_TRANSPORT = "io_transport";
    public static final String MEMCACHED_ENABLE = "memcached.enable";
    public static final String MEMCACHED_BIND = "memcached.bind";
    public static final String MEMCACHED_PORT = "memcached.port";
    public static final String MEMCACHED_SOCKET = "memcached.socket";
    public static final String SOCKET_MODE = "socket_mode";
    public static final String MEMCACHED_MAX_FRAME = "memcached.max_frame";
    public static final String MEMCACHED_SASL_PWDB = "memcached.sasl_pwdb";
    public static final String MEMCACHED_MGMT_ENABLE = "memcached.mgmt_enable";
    public static final String MEMCACHED_MGMT_BIND = "memcached.mgmt_bind";
    public static final String MEMCACHED_MGMT_PORT = "memcached.mgmt_port";
    public static final String MEMCACHED_ADVERTISED_PORT = "memcached.advertised_port";
    public static final String BUCKETS = "buckets";
    public static final String COLLECTIONS_MAX_SCOPES = "collections.max_scopes";
    public static final String COLLECTIONS_MAX_COLLECTIONS = "collections.max_collections";
    public static final String COLLECTIONS_REFRESH_MS = "collections.refresh_ms";
    public static final String SCAN_DIRECTORY = "scan.directory";
    public static final String OKUYAMA_ENABLE = "okuyama.enable";
    public static final String OKUYAMA_BIND = "okuyama.bind";
    public static final String OKUYAMA_SOCKET = "okuyama.socket";
    public static final String OKUYAMA_PORT = "okuyama.port";
    public static final String OKUYAMA_NAMESPACE = "okuyama.namespace";
    public static final String OKUYAMA_MAX_LINE = "okuyama.max_line";
    public static final String MPDB_ENABLE = "mpdb.enable";
    public static final String MPDB_BIND = "mpdb.bind";
    public static final String MPDB_PORT = "mpdb.port";
    public static final String MPDB_NAMESPACE_PREFIX = "mpdb.namespace_prefix";
    public static final String MPDB_SERVER_TIMEOUT_MS = "mpdb.server_timeout_ms";
    public static final String MPDB_WINDOW = "mpdb.window";
    public static final String MPDB_MAX_DATAGRAM = "mpdb.max_datagram";
    public static final String MPDB_CLIENT_EXPIRY_S = "mpdb.client_expiry_s";
    public static final String MPDB_CLIENT_MEMORY = "mpdb.client_memory";
    public static final String COUNTER_ENABLE = "counter.enable";
    public static final String COUNTER_BIND = "counter.bind";
    public static final String COUNTER_SOCKET = "counter.socket";
    public static final String COUNTER_PORT = "counter.port";
    public static final String COUNTER_MAX_CONNECTIONS = "counter.max_connections";
    public static final String COUNTER_BUCKETS = "counter.buckets";
    public static final String COUNTER_STATS_INTERVAL = "counter.stats_interval";
    public static final String COUNTER_STORE = "counter.store";
    public static final String COUNTER_LEASE_MS = kvgate.spi.BackendContext.COUNTER_LEASE_MS;
    public static final String ADMIN_ENABLE = "admin.enable";
    public static final String ADMIN_BIND = "admin.bind";
    public static final String ADMIN_PORT = "admin.port";
    public static final String METRICS_ENABLE = "metrics.enable";
    public static final String METRICS_BIND = "metrics.bind";
    public static final String METRICS_PORT = "metrics.port";
    public static final String METRICS_LOOP_LAG_MS = "metrics.loop_lag_ms";
    /** {@link #COUNTER_STORE} value for the built-in store: in this process's memory, not persisted. */
    public static final String MEMORY_COUNTER_STORE = "memory";

    /**
     * Other spellings accepted for a key: the reference counter server's own sample configuration says
     * {@code counter.stat_interval} where its document says {@code counter.stats_interval}; MPDB's server timeout
     * is also accepted without its unit, as its document names it.
     */
    public static final Map<String, String> ALIASES = Map.of(
            "counter.stat_interval", COUNTER_STATS_INTERVAL,
            "mpdb.server_timeout", MPDB_SERVER_TIMEOUT_MS);

    /** Every gateway key, in the order the README lists them. */
    public static final List<Setting> ALL = List.of(
            Setting.text(BACKEND, "local", "the backend type to store data in (a loaded backend plugin's type); "
                    + "with routes, the backend instance named default"),
            Setting.text(ROUTE, "", "the root of the route tree: a route or backend instance name (empty: every "
                    + "request goes to the backend of 'backend')"),
            Setting.text(PLUGINS_DIR, "plugins",
                    "comma-separated plugin directories; relative ones are under the gateway's home directory"),
            Setting.text(FILTERS, "", "comma-separated operation filters to apply, outermost first"),
            Setting.size(MAX_ITEM_SIZE, "1m", 1024, 512L << 20, "largest value stored, in bytes"),
            Setting.integer(MAX_CONNECTIONS, 4096, 0, 1_000_000,
                    "client connections held at once over all listeners; more are closed at once (0: no limit)"),
            Setting.integer(MAX_INFLIGHT, 1024, 1, 1_000_000,
                    "requests of one connection awaiting replies before the gateway stops reading from it"),
            Setting.integer(IDLE_TIMEOUT_S, 0, 0, 86_400 * 30,
                    "close a client connection idle this many seconds (0: never); never a counter connection"),
            Setting.integer(IO_THREADS, 0, 0, 1024, "network threads (0: two per core)"),
            Setting.choice(IO_TRANSPORT, "auto", "how the network threads do their I/O: epoll, io_uring or nio "
                    + "(auto: epoll where available, else nio)", "auto", "epoll", "io_uring", "nio"),
            Setting.text(SOCKET_MODE, "0700",
                    "permissions of the listeners' Unix domain sockets, in octal, as memcached's -a (0700: this "
                            + "user only; 0770: its group too; 0777: anyone on the host)"),
            Setting.bool(MEMCACHED_ENABLE, true, "serve the memcached binary protocol"),
            Setting.text(MEMCACHED_BIND, "0.0.0.0", "address the memcached listener binds to"),
            Setting.integer(MEMCACHED_PORT, 11211, 0, 65535, "memcached binary protocol port (0: any free port)"),
            Setting.text(MEMCACHED_SOCKET, "",
                    "a Unix domain socket (a path) the memcached binary protocol is served on too, for clients on "
                            + "this host, as memcached's -s (empty: none)"),
            Setting.size(MEMCACHED_MAX_FRAME, "32m", 4096, 1L << 31,
                    "a request body longer than this closes the connection after a 'too large' reply; bodies "
                            + "between max_item_size and this are skipped and answered 'too large'"),
            Setting.text(MEMCACHED_SASL_PWDB, "",
                    "password file (a line user:password each) of the users who may authenticate with SASL; "
                            + "when set, a connection must authenticate before anything else (empty: no "
                            + "authentication required)"),
            Setting.bool(MEMCACHED_MGMT_ENABLE, false,
                    "serve the little of a Couchbase node's management (HTTP) port that an SDK's waitUntilReady "
                            + "asks (GET /pools/default/buckets/<bucket>), on memcached.mgmt_port"),
            Setting.text(MEMCACHED_MGMT_BIND, "",
                    "address of the management listener (empty: memcached.bind, as clients reach it at the host "
                            + "they reach the memcached port at)"),
            Setting.integer(MEMCACHED_MGMT_PORT, 8091, 1, 65535,
                    "the management (HTTP) port the cluster map given to Couchbase clients names: the one their "
                            + "connection string gives for this gateway (Couchbase's 8091 unless it says otherwise); "
                            + "the management listener's port when memcached.mgmt_enable is on"),
            Setting.integer(MEMCACHED_ADVERTISED_PORT, 0, 0, 65535,
                    "the memcached port the cluster map given to Couchbase clients names, where clients reach the "
                            + "gateway through a port mapping (0: the port the client reached)"),
            Setting.text(BUCKETS, "default",
                    "comma-separated bucket names for SelectBucket, each with its own collections manifest; "
                            + "connections use 'default' before selecting one when it is listed"),
            Setting.integer(COLLECTIONS_MAX_SCOPES, 1000, 1, 1_000_000, "most scopes a bucket's manifest may define"),
            Setting.integer(COLLECTIONS_MAX_COLLECTIONS, 1000, 1, 1_000_000,
                    "most collections, over all scopes, a bucket's manifest may define"),
            Setting.integer(COLLECTIONS_REFRESH_MS, 1000, 10, 3_600_000,
                    "a manifest set through another gateway on the same backend is in force here within this "
                            + "many milliseconds"),
            Setting.choice(SCAN_DIRECTORY, "except_default",
                    "on a backend that cannot list a namespace's keys (memcached), the namespaces whose keys the "
                            + "gateway lists so that scans (MPDB GETBUCKET) work: all, except_default (every "
                            + "namespace but the one plain memcached clients use), none",
                    "all", "except_default", "none"),
            Setting.bool(OKUYAMA_ENABLE, false, "serve the okuyama text protocol"),
            Setting.text(OKUYAMA_BIND, "0.0.0.0", "address the okuyama listener binds to"),
            Setting.integer(OKUYAMA_PORT, 8888, 0, 65535, "okuyama protocol port (0: any free port)"),
            Setting.text(OKUYAMA_SOCKET, "",
                    "a Unix domain socket the okuyama protocol is served on too (empty: none)"),
            Setting.text(OKUYAMA_NAMESPACE, "default",
                    "the namespace okuyama keys, tags and the search index live in; the default is the one "
                            + "memcached clients without collections use, so both see the same items"),
            Setting.size(OKUYAMA_MAX_LINE, "4m", 1024, 1L << 30,
                    "longest request line; a longer one is dropped as it arrives and answered with the method's "
                            + "length error"),
            Setting.bool(MPDB_ENABLE, false, "serve MPDB (MsgPack maps over UDP)"),
            Setting.text(MPDB_BIND, "0.0.0.0",
                    "address the MPDB listener binds to; 0.0.0.0 takes IPv4 and, where the host has it, IPv6"),
            Setting.integer(MPDB_PORT, 7000, 0, 65535, "MPDB UDP port (0: any free port)"),
            Setting.text(MPDB_NAMESPACE_PREFIX, "mpdb:",
                    "MPDB collection c lives in namespace <prefix>c, node n's private bucket in <prefix>node:n; "
                            + "empty: collection 'default' is the memcached default namespace"),
            Setting.integer(MPDB_SERVER_TIMEOUT_MS, 3000, 1, 3_600_000,
                    "how long a missing echo tag holds up the ones after it, in milliseconds; also accepted as "
                            + "mpdb.server_timeout"),
            Setting.integer(MPDB_WINDOW, 10, 1, 10_000,
                    "echo tags buffered ahead of the last one run (later ones are dropped), and replies kept for "
                            + "resends"),
            Setting.size(MPDB_MAX_DATAGRAM, "65507", 512, 65507,
                    "longest request datagram taken and reply sent; longer requests get an error reply"),
            Setting.integer(MPDB_CLIENT_EXPIRY_S, 120, 1, 86_400 * 7,
                    "forget a client's ordering state after this many seconds without a datagram from it that was "
                            + "run or answered"),
            Setting.size(MPDB_CLIENT_MEMORY, "64m", 64 << 10, 1L << 30,
                    "memory all clients' ordering state may take (buffered requests, cached replies); the least "
                            + "used clients are forgotten beyond it"),
            Setting.bool(COUNTER_ENABLE, false, "serve the counter protocol (the yrmcds counter extension)"),
            Setting.text(COUNTER_BIND, "0.0.0.0", "address the counter listener binds to"),
            Setting.integer(COUNTER_PORT, 11215, 0, 65535, "counter protocol port (0: any free port)"),
            Setting.text(COUNTER_SOCKET, "",
                    "a Unix domain socket the counter protocol is served on too (empty: none)"),
            Setting.integer(COUNTER_MAX_CONNECTIONS, 0, 0, 1_000_000,
                    "counter protocol connections held at once; more are closed at once (0: no limit)"),
            Setting.text(COUNTER_STORE, MEMORY_COUNTER_STORE,
                    "where counters live: memory (this process, not persisted, as in the reference), or the type "
                            + "of a backend plugin that keeps counters (Capability.COUNTERS)"),
            Setting.integer(COUNTER_BUCKETS, 1_000_000, 1, Integer.MAX_VALUE,
                    "expected number of counters (sizes the counter table)"),
            Setting.integer(COUNTER_STATS_INTERVAL, 86_400, 10, 86_400 * 366,
                    "seconds of the interval over which dump reports each counter's maximum consumption; "
                            + "also accepted as counter.stat_interval"),
            Setting.integer(COUNTER_LEASE_MS, 60_000, 300, 86_400_000,
                    "with a shared counter store, a gateway renews its connections' acquisitions every third of "
                            + "this; those of a gateway that died without closing its connections are released this "
                            + "many milliseconds after its last renewal; keep it well above the time the store "
                            + "takes to fail over, or every holding is given back during one"),
            Setting.bool(ADMIN_ENABLE, false, "serve the admin port (explain, reload, routes, stats)"),
            Setting.text(ADMIN_BIND, "127.0.0.1", "address of the admin listener; anyone who reaches it can reload "
                    + "the configuration, so keep it on loopback or a management network"),
            Setting.integer(ADMIN_PORT, 11299, 0, 65535, "admin port (0: any free port)"),
            Setting.bool(METRICS_ENABLE, false, "serve the meters over HTTP for Prometheus to scrape (GET /metrics)"),
            Setting.text(METRICS_BIND, "127.0.0.1", "address of the metrics listener"),
            Setting.integer(METRICS_PORT, 11298, 0, 65535, "metrics port (0: any free port)"),
            Setting.integer(METRICS_LOOP_LAG_MS, 10, 0, 60_000,
                    "how often each network thread is probed for how late it runs its work, in ms (0: never)"));

    private static final Pattern BUCKET_NAME = Pattern.compile("[A-Za-z0-9_.%-]{1,100}");

    private GatewaySettings() {
    }

    /** The configured bucket names: 1 to 100 characters of {@code A-Z a-z 0-9 _ . % -} each, as Couchbase allows. */
    public static Set<String> buckets(Settings settings) throws ConfigurationException {
        Set<String> buckets = new LinkedHashSet<>();
        for (String entry : settings.text(BUCKETS).split(",")) {
            String name = entry.strip();
            if (name.isEmpty()) {
                continue;
            }
            if (!BUCKET_NAME.matcher(name).matches()) {
                throw new ConfigurationException(BUCKETS + " = " + settings.text(BUCKETS) + ": bucket name '" + name
                        + "' is invalid; expected 1 to 100 characters of A-Z a-z 0-9 _ . % -");
            }
            buckets.add(name);
        }
        return buckets;
    }
}
