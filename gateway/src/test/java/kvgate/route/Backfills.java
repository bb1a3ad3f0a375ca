package kvgate.route;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import kvgate.testing.TestGateway;

/** What the backfill tests share: a warm-up route named {@code move}, its counters, and retiring its old store. */
final class Backfills {
    private Backfills() {
    }

    /** A route tree whose root {@code move} warms the backend {@code default} up from {@code old}, unpaced. */
    static Map<String, String> warmUpFrom(String old) {
        Map<String, String> settings = new HashMap<>();
        settings.put("route", "move");
        settings.put("routes.move.type", "warmup");
        settings.put("routes.move.old", old);
        settings.put("routes.move.new", "default");
        settings.put("routes.move.backfill", "default");
        settings.put("routes.move.backfill_rate", "0");
        return settings;
    }

    /** The route node's counter {@code name}, 0 before it counts. */
    static long counter(TestGateway gateway, String name) {
        return gateway.gateway().metrics().routeCounters().getOrDefault("move:" + name, 0L);
    }

    /** Waits up to {@code seconds} for any of {@code ends} (counters) to count. */
    static void awaitAny(TestGateway gateway, int seconds, String... ends) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (System.nanoTime() < deadline) {
            for (String end : ends) {
                if (counter(gateway, end) > 0) {
                    return;
                }
            }
            Thread.sleep(20);
        }
    }

    /**
     * Turns the old store off: reloads {@code gateway} with {@code live} (its reloadable settings) stripped of the
     * routes and the declared backends, so that the new store, {@code backend}'s, is all there is.
     */
    static void retireOld(TestGateway gateway, Map<String, String> live) throws Exception {
        Map<String, String> after = new HashMap<>(live);
        after.keySet().removeIf(key -> key.startsWith("routes.") || key.startsWith("backends."));
        after.put("route", "");
        live.clear();
        live.putAll(after);
        gateway.gateway().reload();
    }
}
