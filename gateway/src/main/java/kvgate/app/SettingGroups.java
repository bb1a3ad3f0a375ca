package kvgate.app;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import kvgate.collections.CollectionsSettings;
import kvgate.config.GatewaySettings;
import kvgate.config.SettingGroup;
import kvgate.counterstore.CounterStoreSettings;
import kvgate.net.ListenerTls;
import kvgate.net.Protocol;
import kvgate.plugins.PluginCatalog;
import kvgate.route.RouteTree;
import kvgate.spi.BackendFactory;
import kvgate.spi.RouteFactory;
import kvgate.spi.Setting;

/**
 * Every key the gateway reads, its own and its plugins', in the groups the configuration reference, the shipped
 * configuration and {@code --help} show ({@link kvgate.config.ConfigurationReference}), and what the shipped
 * configuration sets where it differs from the defaults.
 */
public final class SettingGroups {
    /**
     * The shipped conf/gateway.conf's values that differ from the defaults: every listener on loopback, and the
     * protocols and operators' ports a first start should show on.
     */
    public static final Map<String, String> SHIPPED = Map.of("memcached.bind", "127.0.0.1", "okuyama.enable", "true",
            "okuyama.bind", "127.0.0.1", "mpdb.bind", "127.0.0.1", "counter.enable", "true", "counter.bind",
            "127.0.0.1", GatewaySettings.ADMIN_ENABLE, "true", GatewaySettings.METRICS_ENABLE, "true");

    /** Titles and introductions of the protocols' groups, by protocol name. */
    private static final Map<String, String[]> PROTOCOLS = Map.of(
            "memcached", new String[] {"memcached protocols: binary (with Couchbase's additions), text and meta",
                "One listener serves them all, as memcached does: a connection's first byte decides. See "
                        + "[memcached](memcached.md) and [the text and meta protocols](memcached-text.md)."},
            "counter", new String[] {"Counter protocol (the yrmcds counter extension)",
                "Distributed resource counters; see [Counters](counter.md). Off by default, as in the extension's "
                        + "document."},
            "okuyama", new String[] {"okuyama protocol",
                "okuyama's text protocol, with tags, versions, search, lists and locks; see [okuyama](okuyama.md)."},
            "mpdb", new String[] {"MPDB: MsgPack maps over UDP",
                "Off as shipped, as memcached turned its UDP port off: a UDP request's source address can be forged, "
                        + "which makes any server that answers it a reflector (see [Reflection](mpdb.md#reflection)). "
                        + "Turn it on where its clients need it, with an access list."});

    private SettingGroups() {
    }

    /** The groups of the gateway's own keys and of the loaded backend plugins' keys, in the order shown. */
    public static List<SettingGroup> all(PluginCatalog plugins) {
        List<SettingGroup> groups = new ArrayList<>();
        groups.add(new SettingGroup("Storage and routes", "Where items live: a backend plugin's store, or a tree "
                + "of routes over named backend instances (see [Routes](routes.md)). A backend instance is a named "
                + "instance of a backend plugin with that plugin's settings; the `backend` key's is the instance "
                + "named `default`. `bin/admin explain memcached default <key>` shows the path a key takes; "
                + "`bin/admin reload` (or SIGHUP) puts an edited tree in force.",
                gateway(GatewaySettings.BACKEND, GatewaySettings.ROUTE, GatewaySettings.PLUGINS_DIR,
                        GatewaySettings.SCAN_DIRECTORY),
                List.of("# Two more stores, and requests mapped to them by namespace and key prefix:",
                        "backends.pool.type = memcached", "backends.pool.servers = 10.0.0.1:11211,10.0.0.2:11211",
                        "route = top", "routes.top.type = namespace",
                        "routes.top.namespaces = mpdb:*=pool, travel/*=safe, audit=copy",
                        "routes.top.default = split", "routes.split.type = prefix",
                        "routes.split.prefixes = session:=pool, cache:=pool", "routes.split.default = default",
                        "routes.safe.type = failover", "routes.safe.children = pool, default",
                        "routes.copy.type = all", "routes.copy.children = default, pool",
                        "# A shadow node answers from its primary and mirrors a share of keys to a store on trial, "
                                + "counting the differences (stats routes):",
                        "route = trial", "routes.trial.type = shadow", "routes.trial.primary = default",
                        "routes.trial.shadow = pool", "routes.trial.fraction = 0.1",
                        "# A warm-up node moves one store's items to another under traffic (docs/routes.md):",
                        "route = move", "routes.move.type = warmup", "routes.move.new = pool",
                        "routes.move.old = default", "routes.move.backfill = default, mpdb:users")));
        Map<String, BackendFactory> backends = new TreeMap<>();
        plugins.backends().forEach((type, found) -> backends.put(type, found.extension()));
        backends.forEach((type, factory) -> groups.add(backend(factory)));
        groups.add(new SettingGroup("Limits", "How much one request, one connection and all of them together may "
                + "take, and for how long; see [Overload](operating.md#overload).",
                gateway(GatewaySettings.MAX_ITEM_SIZE, GatewaySettings.MAX_CONNECTIONS, GatewaySettings.MAX_INFLIGHT,
                        GatewaySettings.IDLE_TIMEOUT_S, GatewaySettings.REQUEST_TIMEOUT_S,
                        GatewaySettings.READ_BUDGET)));
        groups.add(new SettingGroup("Network threads and sockets", "", gateway(GatewaySettings.IO_THREADS,
                GatewaySettings.IO_TRANSPORT, GatewaySettings.SOCKET_MODE)));
        groups.add(new SettingGroup("TLS", "What every listener with `<listener>.tls` on presents, and what it asks "
                + "of clients; see [TLS](operating.md#tls).", ListenerTls.SETTINGS));
        for (Protocol protocol : Protocols.ALL) {
            String[] described = PROTOCOLS.get(protocol.name());
            List<Setting> settings = new ArrayList<>(protocol.settings());
            if (protocol.name().equals("counter")) {
                settings.addAll(CounterStoreSettings.ALL);
            }
            groups.add(new SettingGroup(described[0], described[1], settings));
            if (protocol.name().equals("memcached")) {
                groups.add(new SettingGroup("Buckets and Couchbase collections", "On the memcached listener; see "
                        + "[Buckets and Couchbase collections](memcached.md#buckets-and-couchbase-collections).",
                        CollectionsSettings.ALL));
            }
        }
        groups.add(new SettingGroup("Admin port", "A line protocol for operators: `explain`, `reload`, `routes`, "
                + "`stats`, `version` (`help` lists them); `bin/admin` sends one command. See [Explain, reload and "
                + "the admin port](operating.md#explain-reload-and-the-admin-port).",
                gateway(GatewaySettings.ADMIN_ENABLE, GatewaySettings.ADMIN_BIND, GatewaySettings.ADMIN_PORT,
                        GatewaySettings.allowKey(GatewaySettings.ADMIN),
                        GatewaySettings.tlsKey(GatewaySettings.ADMIN))));
        groups.add(new SettingGroup("Metrics for Prometheus", "`GET /metrics` answers the gateway's meters (and the "
                + "JVM's) in Prometheus's text format; see [Metrics for Prometheus]"
                + "(operating.md#metrics-for-prometheus).",
                gateway(GatewaySettings.METRICS_ENABLE, GatewaySettings.METRICS_BIND, GatewaySettings.METRICS_PORT,
                        GatewaySettings.allowKey(GatewaySettings.METRICS),
                        GatewaySettings.tlsKey(GatewaySettings.METRICS), GatewaySettings.METRICS_LOOP_LAG_MS)));
        return groups;
    }

    /** The route node types, built in and the loaded plugins', each with the settings of a node of its type. */
    public static List<SettingGroup> routeNodes(PluginCatalog plugins) {
        Map<String, RouteFactory> types = new TreeMap<>();
        RouteTree.BUILT_IN.forEach(factory -> types.put(factory.type(), factory));
        plugins.routes().forEach((type, found) -> types.put(type, found.extension()));
        List<SettingGroup> groups = new ArrayList<>();
        types.forEach((type, factory) -> groups.add(new SettingGroup("Route node type " + type
                + " (routes.<name>.<key>)", "", factory.settings())));
        return groups;
    }

    private static SettingGroup backend(BackendFactory factory) {
        List<Setting> settings = new ArrayList<>();
        factory.settings().forEach(setting -> settings.add(setting.withKey(factory.type() + "." + setting.key())));
        return new SettingGroup("The " + factory.type() + " backend (backend = " + factory.type() + ")",
                factory.description(), settings);
    }

    /** The gateway's own settings of these keys, in this order. */
    private static List<Setting> gateway(String... keys) {
        List<Setting> picked = new ArrayList<>();
        for (String key : keys) {
            picked.add(GatewaySettings.ALL.stream().filter(setting -> setting.key().equals(key)).findFirst()
                    .orElseThrow(() -> new IllegalStateException("no gateway setting " + key)));
        }
        return picked;
    }
}
