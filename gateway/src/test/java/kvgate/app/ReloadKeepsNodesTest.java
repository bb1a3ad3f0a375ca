package kvgate.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import kvgate.route.RouteTree;
import kvgate.testing.BinaryClient;
import kvgate.testing.TestGateway;
import org.junit.jupiter.api.Test;

/**
 * A reload changes only what changed: an unchanged file rebuilds nothing, and a node whose settings and children are
 * unchanged keeps running through a reload that rebuilds the nodes around it, a warm-up's backfill where it was.
 */
class ReloadKeepsNodesTest {
    private static final int KEYS = 40;

    /** {@code seed:} keys go to the old store; {@code split} sends {@code a:} through the warm-up node. */
    private static Map<String, String> live() {
        Map<String, String> live = new ConcurrentHashMap<>();
        live.put("route", "split");
        live.put("routes.split.type", "prefix");
        live.put("routes.split.prefixes", "a:=warm, seed:=old");
        live.put("routes.split.default", "default");
        live.put("routes.warm.type", "warmup");
        live.put("routes.warm.old", "old");
        live.put("routes.warm.new", "fresh");
        live.put("routes.warm.backfill", "default");
        live.put("routes.warm.backfill_rate", "40");
        live.put("routes.warm.backfill_concurrency", "1");
        live.put("backends.old.type", "local");
        live.put("backends.old.path", ":memory:");
        live.put("backends.fresh.type", "local");
        live.put("backends.fresh.path", ":memory:");
        return live;
    }

    private static long counter(TestGateway gateway, String name) {
        return gateway.gateway().metrics().routeCounters().getOrDefault("warm:" + name, 0L);
    }

    @Test
    void anUnchangedConfigurationRebuildsNothing() throws Exception {
        Map<String, String> live = live();
        try (TestGateway gateway = TestGateway.startReloadable(live)) {
            RouteTree before = gateway.gateway().routes();
            String summary = gateway.gateway().reload();
            assertEquals("unchanged; the route tree in force is kept", summary);
            assertSame(before, gateway.gateway().routes());
            assertEquals(0, gateway.gateway().treesRetiring());
        }
    }

    @Test
    void aNodeWhoseSettingsAndChildrenAreUnchangedKeepsItsBackfillThroughAReload() throws Exception {
        Map<String, String> live = live();
        live.put("routes.warm.backfill", ""); // seeded first, then backfilled
        try (TestGateway gateway = TestGateway.startReloadable(live);
             BinaryClient client = new BinaryClient(gateway.port())) {
            for (int i = 0; i < KEYS; i++) {
                assertEquals(0, client.set("seed:" + i, "v" + i, 0, 0).status());
            }
            live.put("routes.warm.backfill", "default");
            String first = gateway.gateway().reload();
            assertTrue(first.contains("built [warm, split]"), first);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (counter(gateway, "backfill_copied") < 5 && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertEquals(KEYS, counter(gateway, "backfill_listed"));
            assertTrue(counter(gateway, "backfill_copied") < KEYS, "the backfill ended before the reload");

            // split changes; warm, its settings and its stores do not.
            live.put("routes.split.prefixes", "a:=warm, seed:=old, b:=default");
            String second = gateway.gateway().reload();
            assertTrue(second.contains("nodes kept [warm], built [split]"), second);
            assertTrue(second.contains("closed once idle []"), second);

            deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (counter(gateway, "backfill_done") == 0 && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertEquals(1, counter(gateway, "backfill_done"), "the backfill went on to its end");
            assertEquals(KEYS, counter(gateway, "backfill_listed"), "listed once: the backfill did not start over");
            assertEquals(KEYS, counter(gateway, "backfill_copied") + counter(gateway, "backfill_skipped"));
            assertEquals(0, client.set("a:x", "through warm", 0, 0).status());
            assertEquals("through warm", client.get("a:x").valueText(), "a: is still served through the node");
        }
    }
}
