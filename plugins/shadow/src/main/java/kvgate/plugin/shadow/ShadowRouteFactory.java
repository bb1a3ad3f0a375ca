package kvgate.plugin.shadow;

import java.util.List;
import kvgate.spi.Route;
import kvgate.spi.RouteContext;
import kvgate.spi.RouteFactory;
import kvgate.spi.Setting;
import org.pf4j.Extension;

/** Builds shadow nodes: {@code routes.<name>.type = shadow}, settings {@code routes.<name>.*}. */
@Extension
public final class ShadowRouteFactory implements RouteFactory {
    static final String TYPE = "shadow";
    static final String PRIMARY = "primary";
    static final String SHADOW = "shadow";
    static final String FRACTION = "fraction";
    static final String OPERATIONS = "operations";
    static final String MIRROR_FLUSH = "mirror_flush";
    static final String MAX_INFLIGHT = "max_inflight";
    static final String TIMEOUT_MS = "timeout_ms";
    static final String MAX_BEHIND_KEYS = "max_behind_keys";

    @Override
    public String type() {
        return TYPE;
    }

    @Override
    public List<Setting> settings() {
        return List.of(
                Setting.text(PRIMARY, "", "the route that answers every request (required)"),
                Setting.text(SHADOW, "", "the route mirrored requests also go to; its answers are compared and "
                        + "counted, never returned (required)"),
                Setting.text(FRACTION, "1.0", "the share of keys mirrored, from 0.0 to 1.0, chosen by a hash of "
                        + "the key, so a key's reads and writes are all mirrored or none"),
                Setting.choice(OPERATIONS, MirrorPolicy.Kinds.ALL.setting(), "which operations of a chosen key are "
                        + "mirrored: all, reads (get) or writes (store, delete, arithmetic, touch, tags, index)",
                        MirrorPolicy.Kinds.ALL.setting(), MirrorPolicy.Kinds.READS.setting(),
                        MirrorPolicy.Kinds.WRITES.setting()),
                Setting.bool(MIRROR_FLUSH, true, "whether a flush is mirrored too (unless operations = reads), keeping "
                        + "the shadow comparable; false for a shadow store that others use as well"),
                Setting.integer(MAX_INFLIGHT, 1024, 1, 1_000_000, "mirrored requests outstanding at once, at the "
                        + "shadow or waiting behind a write with a CAS; beyond them a request is not mirrored and "
                        + "counted as skipped"),
                Setting.integer(TIMEOUT_MS, 1000, 1, 600_000, "a shadow request unanswered this long is counted "
                        + "as shadow_failed; it keeps its place of max_inflight until the shadow answers it"),
                Setting.integer(MAX_BEHIND_KEYS, 65_536, 1, 10_000_000, "keys remembered as ones the shadow may "
                        + "be behind on, a mirrored write of them skipped or failed, whose differences are counted as "
                        + "behind rather than mismatched; beyond them some are forgotten"));
    }

    @Override
    public Route build(RouteContext context) {
        Route primary = context.route(context.required(PRIMARY));
        Route shadow = context.route(context.required(SHADOW));
        MirrorPolicy policy = MirrorPolicy.of(context.settings().text(OPERATIONS),
                context.settings().text(FRACTION), context.settings().bool(MIRROR_FLUSH));
        return new ShadowRoute(context.name(), primary, shadow, policy, context.settings().intValue(MAX_INFLIGHT),
                context.settings().integer(TIMEOUT_MS), context.settings().intValue(MAX_BEHIND_KEYS),
                context.scheduler(), context.counters(), context.background());
    }
}
