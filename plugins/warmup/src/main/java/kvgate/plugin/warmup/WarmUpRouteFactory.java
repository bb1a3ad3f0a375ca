package kvgate.plugin.warmup;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import kvgate.spi.Namespace;
import kvgate.spi.Route;
import kvgate.spi.RouteContext;
import kvgate.spi.RouteFactory;
import kvgate.spi.Setting;
import org.pf4j.Extension;

/** Builds warm-up nodes: {@code routes.<name>.type = warmup}, settings {@code routes.<name>.*}. */
@Extension
public final class WarmUpRouteFactory implements RouteFactory {
    static final String NEW = "new";
    static final String OLD = "old";
    static final String WRITES = "writes";
    static final String FILL_MAX_TTL_S = "fill_max_ttl_s";
    static final String TRACKED_KEYS = "tracked_keys";
    static final String BACKFILL = "backfill";
    static final String BACKFILL_CONCURRENCY = "backfill_concurrency";
    static final String BACKFILL_RATE = "backfill_rate";
    static final String BACKFILL_LIMIT = "backfill_limit";
    static final String BACKFILL_VERIFY = "backfill_verify";
    static final String BACKFILL_KEYS = "backfill_keys";
    static final String BACKFILL_TAGS = "backfill_tags";

    @Override
    public String type() {
        return WarmUpRoute.TYPE;
    }

    @Override
    public List<Setting> settings() {
        return List.of(
                Setting.text(NEW, "", "the route the items move to; it answers every request (required)"),
                Setting.text(OLD, "", "the route the items move from (required)"),
                Setting.choice(WRITES, "invalidate",
                        "what a write does to the old store's copy: invalidate deletes it, both also copies the "
                                + "new item back into it", "invalidate", "both"),
                Setting.integer(FILL_MAX_TTL_S, 0, 0, Integer.MAX_VALUE,
                        "most seconds an item copied into the new store lives (0: its own expiry); for an old "
                                + "store that cannot tell an item's expiry (memcached)"),
                Setting.integer(TRACKED_KEYS, 100_000, 64, 100_000_000,
                        "recently written keys remembered, so a copy never brings back what a write replaced"),
                Setting.text(BACKFILL, "",
                        "comma-separated namespaces whose every item is copied in the background (empty: none)"),
                Setting.text(BACKFILL_KEYS, "",
                        "a file of the keys to copy, one a line (UTF-8), read instead of listing the old store, for "
                                + "a store that cannot list itself (empty: the old store lists its items)"),
                Setting.text(BACKFILL_TAGS, "",
                        "comma-separated tags whose keys the backfill copies as well, each copied key then tagged "
                                + "in the new store (okuyama's tags of a cluster moving to another store)"),
                Setting.integer(BACKFILL_CONCURRENCY, 4, 1, 1024, "backfill copies under way at once"),
                Setting.integer(BACKFILL_RATE, 1000, 0, 10_000_000,
                        "most backfill copies started per second (0: no limit)"),
                Setting.integer(BACKFILL_LIMIT, 1_000_000, 1, Integer.MAX_VALUE,
                        "most items a backfilled namespace may hold (one scan lists them all)"),
                Setting.integer(BACKFILL_VERIFY, 1000, 0, Integer.MAX_VALUE,
                        "listed keys compared, old store against new, once the backfill has copied them all: a "
                                + "random sample of this many (0: none; at least the keys listed: all of them)"));
    }

    @Override
    public Route build(RouteContext context) {
        String newName = context.required(NEW);
        String oldName = context.required(OLD);
        if (newName.equals(oldName)) {
            throw new IllegalArgumentException(NEW + " and " + OLD + " both name '" + newName + "'");
        }
        List<Namespace> backfill = new ArrayList<>();
        for (String name : context.settings().text(BACKFILL).split(",")) {
            if (!name.isBlank()) {
                backfill.add(new Namespace(name.strip()));
            }
        }
        WarmUpRoute.Writes writes = WarmUpRoute.Writes.valueOf(
                context.settings().text(WRITES).toUpperCase(Locale.ROOT));
        WarmUpRoute route = new WarmUpRoute(context, context.route(newName), context.route(oldName), writes,
                context.settings().integer(FILL_MAX_TTL_S) * 1000, context.settings().intValue(TRACKED_KEYS));
        String keyFile = context.settings().text(BACKFILL_KEYS).strip();
        List<byte[]> tags = new ArrayList<>();
        for (String tag : context.settings().text(BACKFILL_TAGS).split(",")) {
            if (!tag.isBlank()) {
                tags.add(tag.strip().getBytes(StandardCharsets.UTF_8));
            }
        }
        if (backfill.isEmpty() && (!keyFile.isEmpty() || !tags.isEmpty())) {
            throw new IllegalArgumentException(BACKFILL_KEYS + " and " + BACKFILL_TAGS + " list keys of the "
                    + "namespaces in " + BACKFILL + ", which names none");
        }
        if (!keyFile.isEmpty() && !Files.isReadable(Path.of(keyFile))) {
            throw new IllegalArgumentException(BACKFILL_KEYS + ": cannot read " + keyFile);
        }
        if (!backfill.isEmpty()) {
            route.startBackfill(new Backfill(route, backfill, context,
                    context.settings().intValue(BACKFILL_CONCURRENCY), context.settings().intValue(BACKFILL_RATE),
                    context.settings().intValue(BACKFILL_LIMIT), context.settings().intValue(BACKFILL_VERIFY),
                    keyFile.isEmpty() ? null : Path.of(keyFile), tags));
        }
        return route;
    }
}
