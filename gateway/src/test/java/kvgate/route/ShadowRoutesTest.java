package kvgate.route;

import static kvgate.testing.BinaryClient.bytes;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import kvgate.config.ConfigurationException;
import kvgate.memcached.binary.BinaryStatus;
import kvgate.testing.BinaryClient;
import kvgate.testing.BinaryClient.Response;
import kvgate.testing.MemcachedServers;
import kvgate.testing.TestGateway;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The shadow node of the {@code shadow-route} plugin, loaded from the plugins directory, over two real backends:
 * the local store ({@code default}) answers, a real memcached ({@code mirror}) is the shadow. What the shadow holds
 * is read from and written to memcached directly, behind the gateway's back; what the node counted is read through
 * the memcached protocol's {@code stats routes} and from the gateway's metrics.
 */
@Tag("servers")
class ShadowRoutesTest {
    private static final int OK = 0;
    private static final int NOT_FOUND = BinaryStatus.KEY_NOT_FOUND.code();
    private static final List<String> COUNTERS = List.of("mirrored", "matched", "mismatched", "behind",
            "shadow_failed", "primary_failed", "skipped");
    private static final long DEADLINE_MS = 20_000;

    /**
     * What was mirrored (and matched) before the test sent anything: the gateway reads the collections manifest of
     * its bucket at start-up, through the route tree like any read. The tests set the manifest refresh interval to
     * an hour so that no other read of the gateway's own comes in between.
     */
    private long atStart;

    /** A shadow node {@code shadowed} with the local store as primary and the memcached pool as shadow. */
    private static Map<String, String> shadowed(MemcachedServers memcached, String... more) {
        Map<String, String> settings = TestGateway.with(memcached.instance("mirror"), "collections.refresh_ms",
                "3600000", "route", "shadowed", "routes.shadowed.type", "shadow", "routes.shadowed.primary", "default",
                "routes.shadowed.shadow", "mirror");
        return TestGateway.with(settings, more);
    }

    /** The node's counters by name, from the gateway's metrics, but {@code late} (see {@link #late}). */
    private static Map<String, Long> counted(TestGateway gateway) {
        Map<String, Long> counted = new TreeMap<>();
        gateway.gateway().metrics().routeCounters().forEach((key, value) -> {
            if (key.startsWith("shadowed:") && !key.equals("shadowed:late")) {
                counted.put(key.substring("shadowed:".length()), value);
            }
        });
        return counted;
    }

    /** The node's count of mirrored operations the shadow answered only after the timeout. */
    private static long late(TestGateway gateway) {
        return gateway.gateway().metrics().routeCounters().getOrDefault("shadowed:late", -1L);
    }

    /** The node's counters by name, as {@code stats routes} reports them, but {@code late}. */
    private static Map<String, Long> statsRoutes(BinaryClient client) throws Exception {
        Map<String, Long> counted = new TreeMap<>();
        client.stats("routes").forEach((key, value) -> {
            if (key.startsWith("shadowed:") && !key.equals("shadowed:late")) {
                counted.put(key.substring("shadowed:".length()), Long.parseLong(value));
            }
        });
        return counted;
    }

    /** The counters expected after the test's own operations (and the read at start), none behind. */
    private Map<String, Long> counts(long mirrored, long matched, long mismatched, long shadowFailed,
                                            long skipped) {
        return counts(mirrored, matched, mismatched, 0, shadowFailed, skipped);
    }

    private Map<String, Long> counts(long mirrored, long matched, long mismatched, long behind, long shadowFailed,
                                     long skipped) {
        return new TreeMap<>(Map.of("mirrored", atStart + mirrored, "matched", atStart + matched,
                "mismatched", mismatched, "behind", behind, "undecidable", 0L,
                "shadow_failed", shadowFailed, "primary_failed", 0L, "skipped", skipped));
    }

    /**
     * Waits until {@code mirrored} of the test's operations went to the shadow and every one of them has a verdict
     * (comparisons finish after the client's answer), then returns the counters.
     */
    private Map<String, Long> settled(TestGateway gateway, long sent) throws InterruptedException {
        long mirrored = atStart + sent;
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(DEADLINE_MS);
        Map<String, Long> counted = counted(gateway);
        while (!(counted.get("mirrored") == mirrored && judged(counted) == mirrored)
                && System.nanoTime() < deadline) {
            Thread.sleep(20);
            counted = counted(gateway);
        }
        assertEquals(mirrored, counted.get("mirrored"), counted.toString());
        assertEquals(mirrored, judged(counted), counted.toString());
        return counted;
    }

    /** The gateway just started: waits for its own mirrored reads to be judged and takes them as the baseline. */
    private void started(TestGateway gateway) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(DEADLINE_MS);
        Map<String, Long> counted = counted(gateway);
        while (judged(counted) != counted.get("mirrored") && System.nanoTime() < deadline) {
            Thread.sleep(20);
            counted = counted(gateway);
        }
        atStart = counted.get("mirrored");
        assertEquals(atStart, counted.get("matched"), counted.toString());
    }

    private static long judged(Map<String, Long> counted) {
        return counted.get("matched") + counted.get("mismatched") + counted.get("behind")
                + counted.get("undecidable") + counted.get("shadow_failed") + counted.get("primary_failed");
    }

    @Test
    void answersComeFromThePrimaryAndEveryComparisonIsCounted() throws Exception {
        try (MemcachedServers memcached = MemcachedServers.start(1);
             TestGateway gateway = TestGateway.start(shadowed(memcached));
             BinaryClient client = new BinaryClient(gateway.port());
             BinaryClient direct = new BinaryClient(memcached.port(0))) {
            started(gateway);
            assertEquals(1, atStart, "the manifest read at start-up is mirrored");
            assertEquals(counts(0, 0, 0, 0, 0), statsRoutes(client), "every counter is there from the start");
            assertEquals(OK, client.set("a", "alpha", 1, 0).status());
            assertEquals(OK, client.set("b", "beta", 2, 0).status());
            assertEquals(OK, client.set("c", "gamma", 3, 0).status());
            settled(gateway, 3);
            assertEquals("beta", direct.get("b").valueText(), "writes are mirrored");

            // The shadow drifts behind the gateway's back: another value, other flags, a key only it has.
            assertEquals(OK, direct.set("b", "changed", 2, 0).status());
            assertEquals(OK, direct.set("c", "gamma", 9, 0).status());
            assertEquals(OK, direct.set("d", "only in the shadow", 0, 0).status());
            // One pipelined burst of reads, answered by the local store alone.
            String[] keys = {"a", "b", "c", "d", "e"};
            ByteArrayOutputStream burst = new ByteArrayOutputStream();
            for (int i = 0; i < keys.length; i++) {
                burst.write(BinaryClient.frame(BinaryClient.GET, BinaryClient.NONE, bytes(keys[i]), BinaryClient.NONE,
                        0, 100 + i));
            }
            client.send(burst.toByteArray());
            Response[] read = new Response[keys.length];
            for (int i = 0; i < keys.length; i++) {
                read[i] = client.read();
                assertEquals(100 + i, read[i].opaque());
            }
            assertEquals("alpha", read[0].valueText());
            assertEquals("beta", read[1].valueText());
            assertEquals("gamma", read[2].valueText());
            assertEquals(3, read[2].flags());
            assertEquals(NOT_FOUND, read[3].status());
            assertEquals(NOT_FOUND, read[4].status());
            // a and e (missing on both sides) match; b, c and d differ.
            assertEquals(counts(8, 5, 3, 0, 0), settled(gateway, 8));
            assertEquals(counts(8, 5, 3, 0, 0), statsRoutes(client));

            // A write with the primary's CAS: checked there, and stored in the shadow without it.
            Response current = client.get("a");
            Response replaced = client.call(BinaryClient.SET, BinaryClient.storeExtras(1, 0), bytes("a"),
                    bytes("alpha 2"), current.cas());
            assertEquals(OK, replaced.status());
            assertEquals(counts(10, 7, 3, 0, 0), settled(gateway, 10), "the get and the CAS set");
            assertEquals("alpha 2", direct.get("a").valueText());

            // A flush is mirrored: both stores are empty again, and the next reads match.
            assertEquals(OK, client.call(BinaryClient.FLUSH, BinaryClient.NONE, BinaryClient.NONE,
                    BinaryClient.NONE, 0).status());
            assertEquals(counts(11, 8, 3, 0, 0), settled(gateway, 11));
            assertEquals(NOT_FOUND, direct.get("d").status());
            assertEquals(NOT_FOUND, client.get("d").status());
            assertEquals(counts(12, 9, 3, 0, 0), settled(gateway, 12));
            assertEquals(counts(12, 9, 3, 0, 0), statsRoutes(client));
        }
    }

    @Test
    void aKeyWrittenOnOneConnectionAndReadOnAnotherRightAfterIsNeverCountedAsADifference() throws Exception {
        try (MemcachedServers memcached = MemcachedServers.start(1);
             TestGateway gateway = TestGateway.start(shadowed(memcached, "routes.shadowed.mirror_flush", "true"));
             BinaryClient writer = new BinaryClient(gateway.port());
             BinaryClient reader = new BinaryClient(gateway.port())) {
            started(gateway);
            // Two connections, on the gateway's two network threads: a pooled client's write and its next read.
            int pairs = 600;
            for (int i = 0; i < pairs; i++) {
                String key = "pooled" + (i % 20);
                assertEquals(OK, writer.set(key, "v" + i, 0, 0).status());
                assertEquals("v" + i, reader.get(key).valueText());
            }
            int deletes = 300;
            for (int i = 0; i < deletes; i++) {
                String key = "gone" + (i % 20);
                assertEquals(OK, writer.set(key, "v" + i, 0, 0).status());
                assertEquals(OK, writer.call(BinaryClient.DELETE, BinaryClient.NONE, BinaryClient.bytes(key),
                        BinaryClient.NONE, 0).status());
                assertEquals(NOT_FOUND, reader.get(key).status());
            }
            int flushes = 100;
            for (int i = 0; i < flushes; i++) {
                String key = "flushed" + (i % 10);
                assertEquals(OK, writer.set(key, "v" + i, 0, 0).status());
                assertEquals(OK, writer.call(BinaryClient.FLUSH, BinaryClient.NONE, BinaryClient.NONE,
                        BinaryClient.NONE, 0).status());
                assertEquals(NOT_FOUND, reader.get(key).status());
            }
            Map<String, Long> counted = settled(gateway, 2L * pairs + 3L * deletes + 3L * flushes);
            assertEquals(0, counted.get("mismatched"), counted.toString());
            assertEquals(0, counted.get("undecidable"), "nothing raced: " + counted);
            assertEquals(atStart + 2L * pairs + 3L * deletes + 3L * flushes, counted.get("matched"),
                    counted.toString());
        }
    }

    @Test
    void aDeleteRightBehindACasWriteReachesTheShadowAfterItAsItReachedThePrimary() throws Exception {
        // The primary is a memcached that is stopped while the burst arrives, so the CAS write's answer, which its
        // mirrored copy must wait for, comes only after the delete behind it has been picked for the shadow.
        try (MemcachedServers front = MemcachedServers.start(1);
             MemcachedServers memcached = MemcachedServers.start(1);
             TestGateway gateway = TestGateway.start(shadowed(memcached, "backends.front.type", "memcached",
                     "backends.front.servers", front.serverList(), "routes.shadowed.primary", "front"));
             BinaryClient client = new BinaryClient(gateway.port(), 5000);
             BinaryClient direct = new BinaryClient(memcached.port(0))) {
            started(gateway);
            assertEquals(OK, client.set("k", "one", 0, 0).status());
            long cas = client.get("k").cas();
            settled(gateway, 2);
            front.pause(0, true);
            try {
                client.send(BinaryClient.frame(BinaryClient.SET, BinaryClient.storeExtras(0, 0), bytes("k"),
                        bytes("two"), cas, 1), BinaryClient.frame(BinaryClient.DELETE, BinaryClient.NONE,
                        bytes("k"), BinaryClient.NONE, 0, 2));
                // Time for a delete mirrored at once to reach the shadow before the primary answers anything.
                Thread.sleep(300);
            } finally {
                front.pause(0, false);
            }
            assertEquals(OK, client.read().status(), "the CAS write");
            assertEquals(OK, client.read().status(), "the delete");
            assertEquals(counts(4, 4, 0, 0, 0), settled(gateway, 4));
            assertEquals(NOT_FOUND, direct.get("k").status(), "the shadow, like the primary, ends without the key");
            assertEquals(NOT_FOUND, client.get("k").status());
            assertEquals(counts(5, 5, 0, 0, 0), settled(gateway, 5));
        }
    }

    @Test
    void aFractionMirrorsAboutThatShareOfKeysAndTheSameKeysForReadsAndWrites() throws Exception {
        int keys = 400;
        try (MemcachedServers memcached = MemcachedServers.start(1);
             TestGateway gateway = TestGateway.start(shadowed(memcached, "routes.shadowed.fraction", "0.25"));
             BinaryClient client = new BinaryClient(gateway.port());
             BinaryClient direct = new BinaryClient(memcached.port(0))) {
            started(gateway);
            for (int i = 0; i < keys; i++) {
                assertEquals(OK, client.set("key:" + i, "value " + i, 0, 0).status());
            }
            int inShadow = 0;
            for (int i = 0; i < keys; i++) {
                inShadow += direct.get("key:" + i).status() == OK ? 1 : 0;
            }
            // 100 expected; the hash is fixed, so the share is the same in every run.
            assertTrue(inShadow > 60 && inShadow < 140, inShadow + " of " + keys + " keys mirrored");
            assertEquals(counts(inShadow, inShadow, 0, 0, 0), settled(gateway, inShadow));
            for (int i = 0; i < keys; i++) {
                assertEquals("value " + i, client.get("key:" + i).valueText());
            }
            // Exactly the keys whose writes were mirrored have their reads mirrored: every one finds its value.
            assertEquals(counts(2L * inShadow, 2L * inShadow, 0, 0, 0), settled(gateway, 2L * inShadow));
        }
    }

    @Test
    void aPausedShadowLeavesAnswersQuickSkipsBeyondMaxInflightAndCountsAgainAfterResuming() throws Exception {
        // The client gives up on an answer after 2 s, the node on the shadow after 5 s; the shadow backend itself
        // would wait a minute. An answer that waited for the shadow would fail the client's read.
        try (MemcachedServers memcached = MemcachedServers.start(1);
             TestGateway gateway = TestGateway.start(shadowed(memcached, "routes.shadowed.max_inflight", "4",
                     "routes.shadowed.timeout_ms", "5000", "backends.mirror.timeout_ms", "60000"));
             BinaryClient client = new BinaryClient(gateway.port(), 2000)) {
            started(gateway);
            // One write at a time, each mirrored before the next, so none is skipped while the shadow is healthy
            // (the first ones wait for the backend's connection).
            for (int i = 0; i < 10; i++) {
                assertEquals(OK, client.set("k" + i, "v" + i, 0, 0).status());
                settled(gateway, i + 1);
            }
            memcached.pause(0, true);
            try {
                for (int i = 0; i < 20; i++) {
                    assertEquals("v" + i % 10, client.get("k" + i % 10).valueText());
                }
                Map<String, Long> counted = counted(gateway);
                assertEquals(atStart + 14, counted.get("mirrored"), counted.toString());
                assertEquals(16, counted.get("skipped"), "beyond max_inflight: " + counted);
                assertEquals(counts(14, 10, 0, 4, 16), settled(gateway, 14), "the four time out");
            } finally {
                memcached.pause(0, false);
            }
            // The four that timed out hold their places until the resumed server answers them, maybe on the other
            // event loop's connection: a read sent before that is skipped.
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(DEADLINE_MS);
            while (late(gateway) < 4 && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertEquals(4, late(gateway), "the four were answered late");
            // One read at a time again, each compared before the next.
            for (int i = 0; i < 10; i++) {
                assertEquals("v" + i, client.get("k" + i).valueText());
                settled(gateway, 15 + i);
            }
            assertEquals(counts(24, 20, 0, 4, 16), settled(gateway, 24));
            assertEquals(counts(24, 20, 0, 4, 16), statsRoutes(client));
            assertEquals("4", client.stats("routes").get("shadowed:late"), "stats routes has the late ones");
        }
    }

    @Test
    void readsOfAKeyWhoseWriteWasSkippedAreCountedAsBehindUntilAWriteLevelsIt() throws Exception {
        try (MemcachedServers memcached = MemcachedServers.start(1);
             TestGateway gateway = TestGateway.start(shadowed(memcached, "routes.shadowed.max_inflight", "1",
                     "routes.shadowed.timeout_ms", "10000", "backends.mirror.timeout_ms", "10000"));
             BinaryClient client = new BinaryClient(gateway.port());
             BinaryClient direct = new BinaryClient(memcached.port(0))) {
            started(gateway);
            memcached.pause(0, true);
            try {
                assertEquals(OK, client.set("held", "x", 0, 0).status());
                assertEquals(OK, client.set("k", "one", 0, 0).status());
            } finally {
                memcached.pause(0, false);
            }
            assertEquals(counts(1, 1, 0, 0, 0, 1), settled(gateway, 1), "the write of k found no place");
            assertEquals(NOT_FOUND, direct.get("k").status());
            // One operation at a time, each compared (and its place free) before the next.
            assertEquals("one", client.get("k").valueText());
            settled(gateway, 2);
            assertEquals(NOT_FOUND, client.get("never written").status());
            settled(gateway, 3);
            assertEquals(OK, direct.set("never written", "drift", 0, 0).status());
            assertEquals(NOT_FOUND, client.get("never written").status());
            assertEquals(counts(4, 2, 1, 1, 0, 1), settled(gateway, 4),
                    "k differs for a known reason; the key nothing was skipped of is the shadow's own mismatch");

            assertEquals(OK, client.set("k", "two", 0, 0).status());
            settled(gateway, 5);
            assertEquals(OK, direct.set("k", "drift", 0, 0).status());
            assertEquals("two", client.get("k").valueText());
            assertEquals(counts(6, 3, 2, 1, 0, 1), settled(gateway, 6), "the matched set left k level again");
            assertEquals(counts(6, 3, 2, 1, 0, 1), statsRoutes(client));
        }
    }

    @Test
    void aKilledShadowIsCountedAsFailingWhileAnswersStayCorrectAndARestartedOneIsComparedAgain() throws Exception {
        try (MemcachedServers memcached = MemcachedServers.start(1);
             TestGateway gateway = TestGateway.start(shadowed(memcached, "backends.mirror.failure_limit", "1",
                     "backends.mirror.retry_ms", "200", "backends.mirror.timeout_ms", "500"));
             BinaryClient client = new BinaryClient(gateway.port(), 5000)) {
            started(gateway);
            assertEquals(OK, client.set("before", "x", 0, 0).status());
            settled(gateway, 1);
            memcached.kill(0);
            for (int i = 0; i < 10; i++) {
                assertEquals(OK, client.set("k" + i, "v" + i, 0, 0).status());
                assertEquals("v" + i, client.get("k" + i).valueText());
            }
            assertEquals(counts(21, 1, 0, 20, 0), settled(gateway, 21));

            memcached.restart(0);
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(DEADLINE_MS);
            int written = 0;
            while (counted(gateway).get("matched") == atStart + 1 && System.nanoTime() < deadline) {
                assertEquals(OK, client.set("after" + written, "y", 0, 0).status());
                written++;
                Thread.sleep(50);
            }
            Map<String, Long> counted = settled(gateway, 21 + written);
            assertTrue(counted.get("matched") > atStart + 1, "the restarted shadow is compared again: " + counted);
            assertEquals("x", client.get("before").valueText(), "the primary kept everything");
        }
    }

    @Test
    void aFractionOutOfRangeIsRefusedNamingTheRoute() {
        String message = refused("routes.shadowed.fraction", "1.5");
        assertTrue(message.contains("routes.shadowed") && message.contains("fraction") && message.contains("1.5"),
                message);
    }

    @Test
    void aShadowNodeWithoutAPrimaryIsRefusedNamingTheRoute() {
        String message = refused("routes.shadowed.primary", "");
        assertTrue(message.contains("routes.shadowed") && message.contains("primary is required"), message);
    }

    @Test
    void aShadowNodeNamingNoRouteOrBackendIsRefused() {
        String message = refused("routes.shadowed.shadow", "nowhere");
        assertTrue(message.contains("routes.shadowed") && message.contains("'nowhere'"), message);
    }

    @Test
    void maxInflightIsValidatedAsASetting() {
        String message = refused("routes.shadowed.max_inflight", "0");
        assertTrue(message.contains("routes.shadowed.max_inflight"), message);
    }

    /** Start-up refused for a shadow node over two local stores, with {@code settings} on top. */
    private static String refused(String... settings) {
        Map<String, String> overrides = new HashMap<>(Map.of("backends.spare.type", "local", "backends.spare.path",
                ":memory:", "route", "shadowed", "routes.shadowed.type", "shadow", "routes.shadowed.primary",
                "default", "routes.shadowed.shadow", "spare"));
        for (int i = 0; i < settings.length; i += 2) {
            overrides.put(settings[i], settings[i + 1]);
        }
        return assertThrows(ConfigurationException.class, () -> TestGateway.start(overrides)).getMessage();
    }
}
