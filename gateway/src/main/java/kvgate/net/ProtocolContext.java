package kvgate.net;

import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import kvgate.collections.BucketManifests;
import kvgate.config.GatewaySettings;
import kvgate.dispatch.Dispatcher;
import kvgate.metrics.GatewayMetrics;
import kvgate.route.BackendRoute;
import kvgate.spi.Backend;
import kvgate.spi.Capability;
import kvgate.spi.Settings;

/**
 * What a protocol is started with: everything of the gateway it may need, made before any protocol starts.
 *
 * @param settings every key of the gateway and its protocols, resolved (a protocol reads its own, and the shared
 *     limits below)
 * @param dispatcher where every operation goes
 * @param listeners where a protocol binds its listeners
 * @param manifests the buckets' collections manifests, which name the namespaces memcached clients reach
 * @param backends the backend instances of the route tree in force (a reload may change them)
 * @param settingsInForce every setting in force, backends' and routes' too (a reload may change them)
 * @param counterStore where counters live, or null when the gateway keeps none
 */
public record ProtocolContext(Settings settings, Dispatcher dispatcher, Listeners listeners, GatewayMetrics metrics,
                              Clock clock, BucketManifests manifests, Supplier<List<BackendRoute>> backends,
                              Supplier<Settings> settingsInForce, Backend counterStore) {

    /** The largest value stored ({@code max_item_size}). */
    public int maxItemSize() {
        return Math.toIntExact(settings.size(GatewaySettings.MAX_ITEM_SIZE));
    }

    /** Requests of one connection awaiting replies before reading from it stops ({@code max_inflight}). */
    public int maxInFlight() {
        return settings.intValue(GatewaySettings.MAX_INFLIGHT);
    }

    /**
     * What bounds the reading of {@code protocol}'s requests: {@code request_timeout_s}, and the gateway's
     * {@code read_budget} shared by every protocol. Call once per protocol, as its connections share the counts and
     * the log lines of what is cut and shed.
     */
    public ReadLimits readLimits(String protocol) {
        ReadBudget budget = listeners.readBudget();
        return new ReadLimits(RequestDeadline.of(settings.intValue(GatewaySettings.REQUEST_TIMEOUT_S), protocol,
                metrics.refusals(protocol, "request_timeout")::increment), budget,
                new RefusalLog("shedding " + protocol + " connections holding the longest-waiting partial requests, "
                        + "as read_budget (" + budget.limit() + " bytes) is reached",
                        metrics.refusals(protocol, "read_budget")::increment),
                RefusalLog.errors("closing " + protocol + " connections: direct memory ran out reading their "
                        + "requests (lower read_budget, or raise -XX:MaxDirectMemorySize)",
                        metrics.refusals(protocol, "out_of_memory")::increment));
    }

    /**
     * Whether every backend of the route tree in force has {@code capability}, for a request to ask: worked out once
     * for each tree (a reload puts a new list of instances in force), not at every request.
     */
    public BooleanSupplier allBackendsHave(Capability capability) {
        AtomicReference<Map.Entry<List<BackendRoute>, Boolean>> known = new AtomicReference<>();
        return () -> {
            List<BackendRoute> current = backends.get();
            Map.Entry<List<BackendRoute>, Boolean> answer = known.get();
            if (answer == null || answer.getKey() != current) {
                answer = Map.entry(current, current.stream()
                        .allMatch(instance -> instance.backend().capabilities().contains(capability)));
                known.set(answer);
            }
            return answer.getValue();
        };
    }

    /** Seconds after which an idle client connection is closed, 0 for never ({@code idle_timeout_s}). */
    public int idleTimeout() {
        return settings.intValue(GatewaySettings.IDLE_TIMEOUT_S);
    }
}
