package kvgate.backend.okuyama;

import io.netty.channel.EventLoop;
import io.netty.util.concurrent.EventExecutor;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import kvgate.spi.Backend;
import kvgate.spi.BackendContext;
import kvgate.spi.BackendFactory;
import kvgate.spi.Namespace;
import kvgate.spi.Setting;
import kvgate.spi.Settings;
import org.pf4j.Extension;

/** Opens a running okuyama cluster as a store: {@code backend = okuyama}, settings {@code okuyama.*}. */
@Extension
public final class OkuyamaBackendFactory implements BackendFactory {

    @Override
    public String type() {
        return "okuyama";
    }

    @Override
    public String description() {
        return "A running okuyama cluster, reached through its MasterNodes and listed through "
                + "its DataNodes' exports, most often the old store of a migration; see [The okuyama "
                + "backend](okuyama-backend.md).";
    }

    @Override
    public List<Setting> settings() {
        return List.of(
                Setting.text("masters", "127.0.0.1:8888",
                        "the okuyama backend's MasterNodes, `host:port,...` (IPv6 hosts in brackets); each network "
                        + "thread prefers one and moves to the next while it is down (see [The okuyama "
                        + "backend](okuyama-backend.md))"),
                Setting.text("datanodes", "",
                        "the main DataNodes whose data exports list the cluster's items, `host:port,...`, each "
                        + "optionally followed by its sub and third DataNodes joined with `|` "
                        + "(`h1:5553|h1s:6553,h2:5554`), read in its place when it cannot be; empty: the cluster is "
                        + "not listed (no backfill from it, no flush)"),
                Setting.text("cluster_namespace", "default",
                        "the gateway namespace whose keys are the cluster's own keys, as okuyama's clients see them "
                        + "(keep it equal to `okuyama.namespace`); other namespaces are stored behind their name, "
                        + "with flags and expiry"),
                Setting.text("isolation_prefix", "",
                        "the five characters of the MasterNodes' `IsolationPrefix` when they isolate this tenant: "
                        + "the exports are read for keys behind it alone"),
                Setting.integer("connections", 4, 1, 64,
                        "connections to each MasterNode per network thread; each carries one request at a time, as "
                        + "okuyama's own clients do (a MasterNode delays a second reply on a connection until the "
                        + "first is acknowledged)"),
                Setting.integer("timeout_ms", 1000, 1, 600_000,
                        "a request to a MasterNode unanswered this long fails with a temporary failure, and the "
                        + "connection is re-established"),
                Setting.integer("failure_limit", 3, 1, 1_000_000,
                        "failures in a row (timeouts, refused or lost connections) that eject a MasterNode"),
                Setting.integer("retry_ms", 1000, 10, 3_600_000,
                        "an ejected MasterNode's requests go to the next one at once; it is probed again after this "
                        + "long"));
    }

    @Override
    public Backend open(BackendContext context) {
        Settings settings = context.settings();
        List<NodeAddress> masters = parsed(settings, "masters", NodeAddress::parseList);
        if (masters.isEmpty()) {
            throw new IllegalArgumentException("okuyama.masters: name at least one MasterNode");
        }
        List<List<NodeAddress>> dataNodes = parsed(settings, "datanodes", NodeAddress::parseReplicated);
        String isolation = settings.text("isolation_prefix");
        if (!isolation.isEmpty() && isolation.length() != 5) {
            throw new IllegalArgumentException("okuyama.isolation_prefix: okuyama's prefixes are five characters, not '"
                    + isolation + "'");
        }
        Namespace own;
        try {
            own = new Namespace(settings.text("cluster_namespace"));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("okuyama.cluster_namespace: " + e.getMessage(), e);
        }
        if (context.eventLoops() == null) {
            throw new IllegalArgumentException("the okuyama backend needs the gateway's event loops");
        }
        List<EventLoop> loops = new ArrayList<>();
        for (EventExecutor executor : context.eventLoops()) {
            loops.add((EventLoop) executor);
        }
        int timeout = settings.intValue("timeout_ms");
        // A reply carries at most a value in Base64 and a version.
        int maxLine = context.maxItemSize() / 3 * 4 + 4 + 1024;
        Masters pool = new Masters(masters, loops.toArray(EventLoop[]::new), settings.intValue("connections"), timeout,
                settings.intValue("failure_limit"), settings.intValue("retry_ms"), maxLine);
        return new OkuyamaBackend(pool, new OkuyamaKeys(own, isolation), dataNodes, context.clock(),
                context.maxItemSize(), timeout);
    }

    /** A setting's nodes, a bad one refused with the setting's name. */
    private static <T> T parsed(Settings settings, String key, Function<String, T> parser) {
        try {
            return parser.apply(settings.text(key));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("okuyama." + key + ": " + e.getMessage(), e);
        }
    }
}
