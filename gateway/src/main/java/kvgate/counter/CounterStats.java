package kvgate.counter;

import io.micrometer.core.instrument.Counter;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import kvgate.metrics.GatewayMetrics;
import kvgate.metrics.Verb;
import kvgate.spi.Backend;

/**
 * The Stats command's items, in the reference server's order: the store's own figures, connections of this
 * protocol, and commands served (a malformed request is not counted, as in the reference).
 */
public final class CounterStats {
    public static final String PROTOCOL = "counter";
    /** The counter store's items of the reference server's stats reply, in its order. */
    private static final List<String> STORE_ITEMS = List.of("objects", "total_objects", "used_memory", "conflicts",
            "gc_count", "last_gc_elapsed", "total_gc_elapsed");

    private final GatewayMetrics metrics;
    private final Backend store;
    private final Counter noops;
    private final Counter statsCommands;

    public CounterStats(GatewayMetrics metrics, Backend store) {
        this.metrics = metrics;
        this.store = store;
        this.noops = metrics.command(PROTOCOL, "noop");
        this.statsCommands = metrics.command(PROTOCOL, "stats");
    }

    void noop() {
        noops.increment();
    }

    void statsCommand() {
        statsCommands.increment();
    }

    Map<String, String> items() {
        // The reference's store items, in its order, from whatever the store reports (a store shared with the data
        // backend reports more; one that cannot measure an item reports 0).
        Map<String, String> reported = store.stats();
        Map<String, String> items = new LinkedHashMap<>();
        for (String name : STORE_ITEMS) {
            items.put(name, reported.getOrDefault(name, "0"));
        }
        items.put("curr_connections", Long.toString(metrics.currentConnections(PROTOCOL)));
        items.put("total_connections", Long.toString(metrics.totalConnections(PROTOCOL)));
        items.put("command:noop", Long.toString((long) noops.count()));
        items.put("command:get", Long.toString(metrics.count(Verb.COUNTER_GET)));
        items.put("command:acquire", Long.toString(metrics.count(Verb.ACQUIRE)));
        items.put("command:release", Long.toString(metrics.count(Verb.RELEASE)));
        items.put("command:stats", Long.toString((long) statsCommands.count()));
        items.put("command:dump", Long.toString(metrics.count(Verb.DUMP)));
        return items;
    }

    /** The Stats reply body: (u16 name length, u16 value length, name, ASCII decimal value) per item. */
    byte[] body() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        items().forEach((name, value) -> {
            byte[] n = name.getBytes(StandardCharsets.US_ASCII);
            byte[] v = value.getBytes(StandardCharsets.US_ASCII);
            out.write(n.length >> 8);
            out.write(n.length);
            out.write(v.length >> 8);
            out.write(v.length);
            out.writeBytes(n);
            out.writeBytes(v);
        });
        return out.toByteArray();
    }
}
