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

    /** These keys; {@code kvgate.app.SettingGroups} arranges them for the configuration reference. */
    public static final List<Setting> ALL = List.of(
            Setting.text(BACKEND, "local", "the backend type to store data in: the type of a loaded backend plugin; "
                    + "with routes, the backend instance named `default`"),
            Setting.text(ROUTE, "", "the root of the route tree: a route or backend instance name (empty: every "
                    + "request goes to `backend`); see [Routes](routes.md#routes)"),
            Setting.text(PLUGINS_DIR, "plugins",
                    "comma-separated plugin directories; relative ones are under the gateway's home (the directory "
                    + "holding `lib/` and `plugins/`; in a build from source, `dist/target/kvgate`)"),
            Setting.size(MAX_ITEM_SIZE, "1m", 1024, 512L << 20, "largest value stored, in bytes (`k`, `m`, `g` "
                    + "suffixes)"),
            Setting.integer(MAX_CONNECTIONS, 4096, 0, 1_000_000,
                    "client connections over all listeners; more are closed at once (0: no limit)"),
            Setting.integer(MAX_INFLIGHT, 1024, 1, 1_000_000,
                    "requests of one connection awaiting replies before the gateway stops reading it"),
            Setting.integer(IDLE_TIMEOUT_S, 0, 0, 86_400 * 30,
                    "close client connections idle this long (0: never): no whole request read and no reply written "
                    + "in that time, so a client trickling bytes into a request it never finishes is idle all the "
                    + "while; never the counter protocol's, whose connections hold their resources for as long as "
                    + "they are open"),
            Setting.integer(REQUEST_TIMEOUT_S, 30, 0, 86_400,
                    "seconds a request may take to arrive whole, from its first byte (or the end of the request "
                    + "before it) to its last, on every stream protocol, as nginx's `client_header_timeout` and "
                    + "`client_body_timeout`: a client still sending one then is disconnected without a reply, "
                    + "however steadily its bytes trickle in, counted as "
                    + "`kvgate_refusals_total{cause=\"request_timeout\"}` and logged as refusals are; a connection "
                    + "between requests is never cut by it (0: no limit)"),
            Setting.size(READ_BUDGET, "0", 0, Long.MAX_VALUE, "bytes all connections' partly read requests may hold "
                    + "together, over every protocol (a set's header and the part of its value that has come, a line "
                    + "without its end); past it, the connections waiting longest since their last byte get their "
                    + "protocol's out-of-memory error and are closed until the total is under three quarters of it, "
                    + "never the connection whose read passed it (see [Overload](operating.md#overload)); 0: a "
                    + "quarter of the JVM's direct memory limit (`-XX:MaxDirectMemorySize`, by default the largest "
                    + "heap)"),
            Setting.integer(IO_THREADS, 0, 0, 1024, "network threads (0: two per core). On a machine shared with "
                    + "other busy processes (the load tool in `bin/bench`, the backend), fewer threads than cores do "
                    + "better: each thread then serves more connections per wake-up and none waits for a core"),
            Setting.choice(IO_TRANSPORT, "auto", "how the network threads do their I/O, for every listener and the "
                    + "memcached backend's connections: `epoll`, `io_uring` (Linux, where the kernel and the "
                    + "container's seccomp profile allow it) or `nio` (Java's own); `auto` is epoll where available, "
                    + "else nio. A transport asked for by name and not available is refused at start with the "
                    + "platform's reason, never replaced. io_uring takes every ready connection's reads and writes in "
                    + "one system call: at full load on the local store it served about a tenth more requests a "
                    + "second than epoll here, and nothing more at half of that load or as a proxy (see "
                    + "`docs/performance.md`)", "auto", "epoll", "io_uring", "nio"),
            Setting.text(SOCKET_MODE, "0700",
                    "permissions of every listener's Unix domain socket, in octal, as memcached's `-a`: `0700` this "
                    + "user only, `0770` its group too, `0777` anyone on the host"),
            Setting.choice(SCAN_DIRECTORY, "except_default",
                    "on a backend that cannot list keys (memcached), the namespaces whose keys the gateway lists so "
                    + "scans work: `all`, `except_default` (all but plain memcached clients' namespace), `none`",
                    "all", "except_default", "none"),
            Setting.bool(ADMIN_ENABLE, false, "serve the admin port: "
                    + "`explain`, `reload`, `routes`, `stats`, `version` (see [Explain, reload and the admin "
                    + "port](operating.md#explain-reload-and-the-admin-port))"),
            Setting.text(ADMIN_BIND, "127.0.0.1", "address of the admin listener; anyone who reaches it can reload "
                    + "the configuration, so keep it on loopback or a management network"),
            Setting.integer(ADMIN_PORT, 11299, 0, 65535, "port of the admin listener (0: any free port)"),
            allow(ADMIN, "connect"),
            tls(ADMIN),
            Setting.bool(METRICS_ENABLE, false, "serve the meters over HTTP for Prometheus to scrape, `GET /metrics` "
                    + "(see [Metrics for Prometheus](operating.md#metrics-for-prometheus))"),
            Setting.text(METRICS_BIND, "127.0.0.1", "address of the metrics listener"),
            Setting.integer(METRICS_PORT, 11298, 0, 65535, "port of the metrics listener (0: any free port)"),
            allow(METRICS, "connect"),
            tls(METRICS),
            Setting.integer(METRICS_LOOP_LAG_MS, 10, 0, 60_000,
                    "how often each network thread is probed for how late it gets to its work, in ms (0: never; see "
                    + "[Metrics for Prometheus](operating.md#metrics-for-prometheus))"));

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

    /**
     * A listener's access list, {@code <listener>.allow}: the client networks it takes.
     *
     * @param what what a client of the listener does: "connect" (a stream listener) or "send" (a datagram one)
     */
    public static Setting allow(String listener, String what) {
        return allow(listener, what, "the " + listener + " listener");
    }

    /** @param named the listener as the description names it ("the memcached (and Couchbase management) listener") */
    public static Setting allow(String listener, String what, String named) {
        String refused = what.equals("send")
                ? "the source networks whose datagrams " + named + " takes: comma-separated IPv4 and "
                        + "IPv6 addresses and CIDR blocks (`10.0.0.0/8, 2001:db8::/32`); others are dropped unanswered "
                        + "and counted as `kvgate_datagrams_dropped_total{reason=\"access_list\"}` (empty: any address)"
                : "the client networks that may " + what + " to " + named + ": comma-separated IPv4 "
                        + "and IPv6 addresses and CIDR blocks (`10.0.0.0/8, 2001:db8::/32`); others are closed before "
                        + "anything of theirs is read, counted as `kvgate_refusals_total{cause=\"access_list\"}` and "
                        + "logged as refusals are (empty: any address; clients on a Unix socket are this host's, "
                        + "governed by `socket_mode`)";
        return Setting.text(allowKey(listener), "", refused);
    }

    /** A listener's TLS switch, {@code <listener>.tls}. */
    public static Setting tls(String listener) {
        return tls(listener, "the " + listener + " listener");
    }

    /** @param named the listener as the description names it */
    public static Setting tls(String listener, String named) {
        return Setting.bool(tlsKey(listener), false, "serve " + named + " over TLS only "
                + "(`tls.cert`, `tls.key`), on TCP and on its Unix socket (see [TLS](operating.md#tls))");
    }
}
