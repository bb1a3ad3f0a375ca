package kvgate.memcached;

import io.micrometer.core.instrument.Counter;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import kvgate.metrics.GatewayMetrics;
import kvgate.net.RefusalLog;
import kvgate.metrics.Verb;
import kvgate.route.BackendRoute;
import kvgate.spi.Backend;
import kvgate.spi.Settings;
import kvgate.spi.Status;

/**
 * The stat groups of the Stat command, in memcached's names: the general group (no key) from the gateway's meters
 * and the backend's own figures, {@code settings}, the configuration in force, and {@code routes}, the counters
 * route nodes keep ({@code <route>:<counter>}).
 */
public final class MemcachedStats {
    /** The protocol's name in the gateway's meters. */
    public static final String PROTOCOL = "memcached";
    /** A memcached stat that counts one verb's operations ending in one status. */
    private record Counted(String name, Verb verb, Status status) {
    }

    private static final List<Counted> COUNTED = List.of(
            new Counted("get_hits", Verb.GET, Status.OK),
            new Counted("get_misses", Verb.GET, Status.NOT_FOUND),
            new Counted("delete_hits", Verb.DELETE, Status.OK),
            new Counted("delete_misses", Verb.DELETE, Status.NOT_FOUND),
            new Counted("incr_hits", Verb.INCR, Status.OK),
            new Counted("incr_misses", Verb.INCR, Status.NOT_FOUND),
            new Counted("decr_hits", Verb.DECR, Status.OK),
            new Counted("decr_misses", Verb.DECR, Status.NOT_FOUND),
            new Counted("cas_hits", Verb.CAS, Status.OK),
            new Counted("cas_misses", Verb.CAS, Status.NOT_FOUND),
            new Counted("cas_badval", Verb.CAS, Status.EXISTS),
            new Counted("touch_hits", Verb.TOUCH, Status.OK),
            new Counted("touch_misses", Verb.TOUCH, Status.NOT_FOUND));

    private final GatewayMetrics metrics;
    private final Supplier<List<BackendRoute>> backends;
    private final Supplier<Settings> settings;
    private final int ioThreads;
    /** SASL authentications that succeeded and that failed, as memcached's auth_cmds and auth_errors count. */
    private final Counter authentications;
    private final Counter authenticationFailures;
    private final RefusalLog failedLogins;
    private final RefusalLog unknownBuckets;
    private final RefusalLog certificateLogins;

    /** Stats of a gateway with one backend, of type {@code backendType}. */
    public MemcachedStats(GatewayMetrics metrics, Backend backend, String backendType, Settings settings,
                          int ioThreads) {
        this(metrics, () -> List.of(new BackendRoute(backendType, backendType, backend, "none")), () -> settings,
                ioThreads);
    }

    /**
     * @param backends the backend instances of the route tree in force
     * @param settings the configuration in force
     */
    public MemcachedStats(GatewayMetrics metrics, Supplier<List<BackendRoute>> backends, Supplier<Settings> settings,
                          int ioThreads) {
        this.metrics = metrics;
        this.backends = backends;
        this.settings = settings;
        this.ioThreads = ioThreads;
        this.authentications = metrics.command(PROTOCOL, "sasl_auth");
        this.authenticationFailures = metrics.command(PROTOCOL, "sasl_auth_failed");
        this.failedLogins = new RefusalLog("memcached authentications (SASL) failed",
                metrics.refusals(PROTOCOL, "auth_failed")::increment);
        this.unknownBuckets = new RefusalLog("memcached SelectBucket refused for a bucket this gateway does not have",
                metrics.refusals(PROTOCOL, "unknown_bucket")::increment);
        this.certificateLogins = new RefusalLog("memcached connections closed: the client certificate names no user "
                + "of the password file", metrics.refusals(PROTOCOL, "cert_user")::increment);
    }

    /** A failed authentication, logged (rate-limited) with the peer and the user it named, never the secret. */
    void authenticationFailed(Object peer, String user) {
        failedLogins.refused(peer + (user == null ? "" : " as user " + shown(user)));
    }

    /** A connection closed because its client certificate names no user it may log in as. */
    void certificateRefused(Object peer, String why) {
        certificateLogins.refused(peer + ": " + why);
    }

    /** A SelectBucket of a bucket the gateway does not have, logged (rate-limited) with the peer and the name. */
    void unknownBucket(Object peer, String bucket) {
        unknownBuckets.refused(peer + " for bucket " + shown(bucket));
    }

    /** A client's text for a log line: quoted, at most 64 characters, control characters escaped. */
    private static String shown(String text) {
        StringBuilder shown = new StringBuilder("'");
        text.codePoints().limit(64).forEach(c -> {
            if (Character.isISOControl(c)) {
                shown.append(String.format("\\x%02x", c));
            } else {
                shown.appendCodePoint(c);
            }
        });
        return shown.append(text.length() > 64 ? "'..." : "'").toString();
    }

    /** Counts a SASL exchange that ended, {@code ok} or not. */
    void authenticated(boolean ok) {
        authentications.increment();
        if (!ok) {
            authenticationFailures.increment();
        }
    }

    /** The named group's stats in order, or null for a group this gateway does not have. */
    Map<String, String> group(String name) {
        return switch (name) {
            case "" -> general();
            case "settings" -> settings.get().shown();
            // memcached's groups of its slabs, items, sizes and connections: a gateway has no slabs and keeps no
            // items of its own, so they are empty, which monitoring tools that ask for them read without failing.
            case "items", "slabs", "sizes", "conns" -> Map.of();
            case "routes" -> routes();
            default -> null;
        };
    }

    private Map<String, String> general() {
        long nowMillis = System.currentTimeMillis();
        Map<String, String> stats = new LinkedHashMap<>();
        stats.put("pid", Long.toString(ProcessHandle.current().pid()));
        stats.put("uptime", Long.toString((nowMillis - metrics.startedAtMillis()) / 1000));
        stats.put("time", Long.toString(nowMillis / 1000));
        stats.put("version", MemcachedProtocol.VERSION);
        stats.put("pointer_size", "64");
        stats.put("threads", Integer.toString(ioThreads));
        // How late the network threads got to their work over the last minute (see LoopLag).
        GatewayMetrics.LagSummary lag = metrics.loopLagSummary();
        stats.put("event_loop_lag_p50_us", Long.toString(lag.p50()));
        stats.put("event_loop_lag_p99_us", Long.toString(lag.p99()));
        stats.put("event_loop_lag_p999_us", Long.toString(lag.p999()));
        stats.put("event_loop_lag_max_us", Long.toString(lag.max()));
        stats.put("curr_connections", Long.toString(metrics.currentConnections()));
        stats.put("total_connections", Long.toString(metrics.totalConnections()));
        stats.put("cmd_get", Long.toString(metrics.count(Verb.GET)));
        long sets = 0;
        long stored = 0;
        for (Verb verb : Verb.values()) {
            if (verb.stores()) {
                sets += metrics.count(verb);
                stored += metrics.count(verb, Status.OK);
            }
        }
        stats.put("cmd_set", Long.toString(sets));
        stats.put("cmd_flush", Long.toString(metrics.count(Verb.FLUSH)));
        stats.put("cmd_touch", Long.toString(metrics.count(Verb.TOUCH)));
        stats.put("auth_cmds", Long.toString((long) authentications.count()));
        stats.put("auth_errors", Long.toString((long) authenticationFailures.count()));
        for (Counted counted : COUNTED) {
            stats.put(counted.name(), Long.toString(metrics.count(counted.verb(), counted.status())));
        }
        stats.put("total_items", Long.toString(stored));
        List<BackendRoute> backends = this.backends.get();
        if (backends.size() == 1) {
            stats.put("backend", backends.get(0).type());
            stats.put("backend_capabilities", backends.get(0).backend().capabilities().toString());
            stats.putAll(backends.get(0).backend().stats());
        } else {
            // Several instances: each one's figures under its name, as memcached's own stats have no such notion.
            for (BackendRoute instance : backends) {
                String prefix = "backend:" + instance.name();
                stats.put(prefix, instance.type());
                stats.put(prefix + ":capabilities", instance.backend().capabilities().toString());
                instance.backend().stats().forEach((key, value) -> stats.put(prefix + ":" + key, value));
            }
        }
        stats.putIfAbsent("curr_items", "0");
        return stats;
    }

    private Map<String, String> routes() {
        Map<String, String> stats = new LinkedHashMap<>();
        metrics.routeCounters().forEach((key, value) -> stats.put(key, Long.toString(value)));
        return stats;
    }
}
