package kvgate.backend.redis;

import io.lettuce.core.RedisURI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import kvgate.spi.Backend;
import kvgate.spi.BackendContext;
import kvgate.spi.BackendFactory;
import kvgate.spi.Setting;
import kvgate.spi.Settings;
import org.pf4j.Extension;

/** Opens a Redis server or Redis Cluster: {@code backend = redis}, settings {@code redis.*}. */
@Extension
public final class RedisBackendFactory implements BackendFactory {

    @Override
    public String type() {
        return "redis";
    }

    @Override
    public String description() {
        return "A Redis server or a Redis Cluster, which many gateways can share; see [The Redis "
                + "backend](redis-backend.md).";
    }

    @Override
    public List<Setting> settings() {
        return List.of(
                Setting.text("uri", "",
                        "the Redis backend's standalone server, `redis://[password@]host:port[/database]` "
                        + "(`rediss://` for TLS), or `redis-socket:///path[?database=N]` on a Unix domain socket of "
                        + "this host; set this or `redis.cluster`"),
                Setting.text("cluster", "",
                        "the seed nodes of a Redis Cluster, `host:port,...`; the topology is learnt from them and "
                        + "followed through failovers"),
                Setting.integer("timeout_ms", 1000, 1, 600_000,
                        "a Redis command unanswered this long fails: a temporary failure for a read, a backend error "
                        + "for a change (whose outcome is then unknown); also the connect timeout"),
                Setting.integer("migration_wait_ms", 1000, 0, 600_000,
                        "how long an item's write or a counter's operation that a cluster refuses with `TRYAGAIN` "
                        + "(its slot is migrating) is tried again, in its client's order, before it fails with a "
                        + "temporary failure; 0: at once (see [Resharding](redis-backend.md#the-redis-backend))"),
                Setting.integer("topology_refresh_ms", 10_000, 100, 3_600_000,
                        "how often a cluster's topology is read again, besides at once on MOVED, ASK and "
                        + "reconnections"),
                Setting.choice("layout", "gateway", "how items are kept: `gateway` (the gateway's own layout: flags, "
                        + "CAS, namespaces, tags, counters, shared by every gateway) or `plain` (a Redis an "
                        + "application filled itself: its string keys as the default namespace's items, without flags "
                        + "or CAS, for a warm-up node's `old`; see [The plain "
                        + "layout](redis-backend.md#the-plain-layout-an-applications-own-redis))", "gateway", "plain"),
                Setting.integer("failure_limit", 3, 1, 1_000_000,
                        "requests in a row a Redis server (a cluster master) leaves unanswered (timeouts, lost or "
                        + "refused connections) before its keys' requests fail at once with a temporary failure (see "
                        + "[Failing fast](redis-backend.md))"),
                Setting.integer("retry_ms", 1000, 10, 3_600_000,
                        "while a server's requests fail at once, it is sent a `PING` this often; its answer ends the "
                        + "failing fast"));
    }

    @Override
    public Backend open(BackendContext context) {
        Settings settings = context.settings();
        String uri = settings.text("uri");
        String cluster = settings.text("cluster");
        if (uri.isEmpty() == cluster.isEmpty()) {
            throw new IllegalArgumentException("set exactly one of redis.uri (a standalone server) and redis.cluster "
                    + "(the seed nodes of a cluster)");
        }
        RedisConnections.Target target;
        try {
            target = uri.isEmpty() ? new RedisConnections.Target.Cluster(seeds(cluster))
                    : new RedisConnections.Target.Standalone(RedisURI.create(uri));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException((uri.isEmpty() ? "redis.cluster = " + cluster : "redis.uri = " + uri)
                    + ": " + e.getMessage(), e);
        }
        Duration timeout = Duration.ofMillis(settings.integer("timeout_ms"));
        if (context.eventLoops() == null) {
            throw new IllegalArgumentException("the redis backend needs the gateway's event loops");
        }
        boolean plain = settings.text("layout").equals("plain");
        RedisConnections connections = RedisConnections.open(target, timeout,
                Duration.ofMillis(settings.integer("topology_refresh_ms")), context.eventLoops(), plain);
        if (plain) {
            return new PlainRedisBackend(connections, context.clock());
        }
        return new RedisBackend(connections, context.clock(), context.maxItemSize(), context.eventLoops(),
                context.counterRules().leaseMillis(), context.counterRules().statsIntervalSeconds(),
                settings.integer("migration_wait_ms"), settings.intValue("failure_limit"),
                settings.integer("retry_ms"));
    }

    private static List<RedisURI> seeds(String list) {
        List<RedisURI> seeds = new ArrayList<>();
        for (String node : list.split(",")) {
            String trimmed = node.strip();
            if (trimmed.isEmpty()) {
                continue;
            }
            int colon = trimmed.lastIndexOf(':');
            if (colon < 1 || colon == trimmed.length() - 1) {
                throw new IllegalArgumentException("expected host:port, not '" + trimmed + "'");
            }
            String host = trimmed.substring(0, colon);
            if (host.startsWith("[") && host.endsWith("]")) {
                host = host.substring(1, host.length() - 1);
            }
            int port;
            try {
                port = Integer.parseInt(trimmed.substring(colon + 1));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("bad port in '" + trimmed + "'");
            }
            seeds.add(RedisURI.create(host, port));
        }
        if (seeds.isEmpty()) {
            throw new IllegalArgumentException("no node given");
        }
        return seeds;
    }
}
