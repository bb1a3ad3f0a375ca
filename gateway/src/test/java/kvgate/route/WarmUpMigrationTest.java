package kvgate.route;

import static kvgate.testing.BinaryClient.NONE;
import static kvgate.testing.BinaryClient.bytes;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLongArray;
import kvgate.config.ConfigurationException;
import kvgate.memcached.binary.BinaryStatus;
import kvgate.testing.BinaryClient;
import kvgate.testing.BinaryClient.Response;
import kvgate.testing.OneMemcached;
import kvgate.testing.TestGateway;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A migration from the local store (old, a store file filled by a first gateway) to a real memcached server (new)
 * through the warm-up node, over real sockets. What the new store holds is read from memcached directly, without
 * the gateway: at the end it alone must answer every key.
 */
@Tag("servers")
class WarmUpMigrationTest {
    private static final int OK = 0;
    private static final int NOT_FOUND = BinaryStatus.KEY_NOT_FOUND.code();
    private static final int EXISTS = BinaryStatus.KEY_EXISTS.code();
    /** memcached's arithmetic expiry meaning "do not create a missing key". */
    private static final int NO_CREATE = -1;

    @TempDir
    Path data;
    @RegisterExtension
    final OneMemcached memcached = new OneMemcached();



    /** Writes items into the local store file through a gateway of its own, as the old deployment did. */
    private void preload(Map<String, String> values, int flags, int expiry) throws Exception {
        try (TestGateway old = TestGateway.start(Map.of("local.path", data.toString()));
             BinaryClient client = new BinaryClient(old.port())) {
            for (Map.Entry<String, String> entry : values.entrySet()) {
                assertEquals(OK, client.set(entry.getKey(), entry.getValue(), flags, expiry).status());
            }
        }
    }

    /** A gateway whose root is warm-up node {@code move}: new = memcached ({@code mc}), old = the local store. */
    private TestGateway migrating(String... settings) throws Exception {
        return TestGateway.start(settings(settings));
    }

    private Map<String, String> settings(String... settings) {
        Map<String, String> values = TestGateway.with(memcached.servers().instance("mc"), "local.path", data.toString(),
                "route", "move", "routes.move.type", "warmup", "routes.move.new", "mc", "routes.move.old", "default");
        return TestGateway.with(values, settings);
    }

    private static long counter(TestGateway gateway, String name) {
        return gateway.gateway().metrics().routeCounter("move", name).sum();
    }

    private static Response incr(BinaryClient client, String key, long delta) throws Exception {
        return client.call(BinaryClient.INCREMENT, BinaryClient.arithmeticExtras(delta, 0, NO_CREATE), bytes(key),
                NONE, 0);
    }

    private static Response append(BinaryClient client, String key, String tail) throws Exception {
        return client.call(BinaryClient.APPEND, NONE, bytes(key), bytes(tail), 0);
    }

    @Test
    void aReadCopiesTheItemWithItsFlagsAndRemainingExpiry() throws Exception {
        preload(Map.of("lasting", "forever"), 42, 0);
        preload(Map.of("brief", "soon gone"), 7, 3);
        try (TestGateway gateway = migrating();
             BinaryClient client = new BinaryClient(gateway.port());
             BinaryClient direct = new BinaryClient(memcached.servers().port(0))) {
            assertEquals(NOT_FOUND, direct.get("brief").status());
            Response read = client.get("brief");
            assertEquals("soon gone", read.valueText());
            assertEquals(7, read.flags());
            Response copied = direct.get("brief");
            assertEquals("soon gone", copied.valueText());
            assertEquals(7, copied.flags());
            assertEquals(read.cas(), copied.cas(), "the CAS a client gets is the new store's");
            assertEquals(42, client.get("lasting").flags());
            assertEquals(42, direct.get("lasting").flags());
            assertEquals(2, counter(gateway, "filled"));
            // The copy expires when the original would have: within the 3 seconds it had left, not never.
            Thread.sleep(3_500);
            assertEquals(NOT_FOUND, direct.get("brief").status());
            assertEquals(NOT_FOUND, client.get("brief").status());
            assertEquals("forever", direct.get("lasting").valueText());
        }
    }

    @Test
    void aCasFromAReadThroughTheNodeWorksForAStoreThroughIt() throws Exception {
        preload(Map.of("doc", "v0"), 0, 0);
        try (TestGateway gateway = migrating();
             BinaryClient client = new BinaryClient(gateway.port());
             BinaryClient direct = new BinaryClient(memcached.servers().port(0))) {
            long cas = client.get("doc").cas();
            assertEquals(OK, client.call(BinaryClient.SET, BinaryClient.storeExtras(0, 0), bytes("doc"), bytes("v1"),
                    cas).status());
            assertEquals(EXISTS, client.call(BinaryClient.SET, BinaryClient.storeExtras(0, 0), bytes("doc"),
                    bytes("v2"), cas).status(), "a CAS already used is stale");
            assertEquals("v1", direct.get("doc").valueText());
            assertEquals("v1", client.get("doc").valueText());
        }
    }

    @Test
    void incrementAndAppendOnKeysOnlyInTheOldStoreBuildOnTheirValues() throws Exception {
        preload(Map.of("hits", "41", "log", "a", "taken", "old"), 5, 0);
        try (TestGateway gateway = migrating();
             BinaryClient client = new BinaryClient(gateway.port());
             BinaryClient direct = new BinaryClient(memcached.servers().port(0))) {
            Response incremented = incr(client, "hits", 1);
            assertEquals(OK, incremented.status());
            assertEquals(42, incremented.number());
            assertEquals(OK, append(client, "log", "b").status());
            assertEquals(EXISTS, client.call(BinaryClient.ADD, BinaryClient.storeExtras(0, 0), bytes("taken"),
                    bytes("new"), 0).status(), "add sees the key the old store holds");
            assertEquals("42", direct.get("hits").valueText());
            Response log = direct.get("log");
            assertEquals("ab", log.valueText());
            assertEquals(5, log.flags(), "append keeps the old item's flags");
            assertEquals(OK, client.call(BinaryClient.DELETE, NONE, bytes("taken"), NONE, 0).status());
            assertEquals(NOT_FOUND, client.get("taken").status(), "deleted from both stores");
            assertTrue(counter(gateway, "invalidated") >= 3);
        }
    }

    @Test
    void settingsThatMakeNoNodeAreRefusedNamingTheRoute() {
        Map<String, String> noOld = settings("routes.move.old", "");
        String message = assertThrows(ConfigurationException.class, () -> TestGateway.start(noOld)).getMessage();
        assertTrue(message.contains("routes.move") && message.contains("old is required"), message);
        Map<String, String> nowhere = settings("routes.move.new", "nowhere");
        message = assertThrows(ConfigurationException.class, () -> TestGateway.start(nowhere)).getMessage();
        assertTrue(message.contains("routes.move") && message.contains("'nowhere'"), message);
        Map<String, String> badWrites = settings("routes.move.writes", "sometimes");
        message = assertThrows(ConfigurationException.class, () -> TestGateway.start(badWrites)).getMessage();
        assertTrue(message.contains("routes.move.writes") && message.contains("invalidate"), message);
    }

    /**
     * The evidence: items preloaded into the old store, a backfill and four clients reading and writing at once;
     * afterwards the new store alone answers every key with the last acknowledged write, and no read during the run
     * answered with a value older than a write acknowledged before that read started.
     *
     * <p>Each key has one writing client (so its last acknowledged write is known exactly); every client reads every
     * key. A value names the write that made it: {@code w<n>} for a set, {@code ...|w<n>} for an append, and a
     * counter's value is 1000 plus its increments; a delete is a write too, with its own number.
     */
    @Test
    void aMigrationUnderTrafficEndsWithEveryKeyInTheNewStoreAndNoStaleRead() throws Exception {
        int keys = 1200;
        int counters = 200;
        int clients = 4;
        Map<String, String> initial = new HashMap<>();
        for (int i = 0; i < keys; i++) {
            initial.put("k" + i, "w0");
        }
        for (int i = 0; i < counters; i++) {
            initial.put("c" + i, "1000");
        }
        preload(initial, 3, 0);
        // Per key: the number of its last acknowledged write; the writer's exact model of the value beside it.
        AtomicLongArray acked = new AtomicLongArray(keys + counters);
        AtomicLongArray started = new AtomicLongArray(keys + counters);
        String[] expected = new String[keys + counters];
        for (int i = 0; i < keys; i++) {
            expected[i] = "w0";
        }
        for (int i = 0; i < counters; i++) {
            expected[keys + i] = "1000";
        }
        // The numbers of each key's deletes, so that a read answering NOT_FOUND can be matched to one.
        List<ConcurrentLinkedQueue<Long>> deletes = new ArrayList<>();
        for (int i = 0; i < keys + counters; i++) {
            deletes.add(new ConcurrentLinkedQueue<>());
        }
        ConcurrentLinkedQueue<String> stale = new ConcurrentLinkedQueue<>();
        AtomicBoolean running = new AtomicBoolean(true);
        try (TestGateway gateway = migrating("routes.move.backfill", "default", "routes.move.backfill_rate", "300",
                "routes.move.backfill_concurrency", "4")) {
            ExecutorService pool = Executors.newFixedThreadPool(clients);
            List<Future<Long>> work = new ArrayList<>();
            for (int t = 0; t < clients; t++) {
                int owner = t;
                work.add(pool.submit(() -> {
                    Random random = new Random(owner);
                    long operations = 0;
                    try (BinaryClient client = new BinaryClient(gateway.port())) {
                        while (running.get()) {
                            int key = random.nextInt(keys + counters);
                            String name = key < keys ? "k" + key : "c" + (key - keys);
                            operations++;
                            if (key % clients != owner || random.nextInt(2) == 0) {
                                long before = acked.get(key);
                                Response read = client.get(name);
                                long writeNumber = versionOf(name, key < keys, read, deletes.get(key));
                                if (writeNumber < before) {
                                    stale.add(name + ": read " + (read.status() == OK ? read.valueText()
                                            : "NOT_FOUND") + " after write " + before + " was acknowledged");
                                }
                                continue;
                            }
                            long number = started.incrementAndGet(key);
                            Response answer;
                            if (key >= keys) {
                                answer = incr(client, name, 1);
                                expected[key] = Long.toString(1000 + number);
                            } else if (expected[key] == null) {
                                answer = client.set(name, "w" + number, 0, 0);
                                expected[key] = "w" + number;
                            } else {
                                int choice = random.nextInt(3);
                                if (choice == 0) {
                                    deletes.get(key).add(number);
                                    answer = client.call(BinaryClient.DELETE, NONE, bytes(name), NONE, 0);
                                    expected[key] = null;
                                } else if (choice == 1) {
                                    answer = append(client, name, "|w" + number);
                                    expected[key] = expected[key] + "|w" + number;
                                } else {
                                    answer = client.set(name, "w" + number, 0, 0);
                                    expected[key] = "w" + number;
                                }
                            }
                            assertEquals(OK, answer.status(), "write " + number + " of " + name);
                            acked.set(key, number);
                        }
                    }
                    return operations;
                }));
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
            while (counter(gateway, "backfill_done") == 0 && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            Thread.sleep(500); // traffic after the backfill too
            running.set(false);
            long operations = 0;
            for (Future<Long> future : work) {
                operations += future.get(30, TimeUnit.SECONDS);
            }
            pool.shutdown();
            assertEquals(1, counter(gateway, "backfill_done"), "the backfill finished");
            assertEquals(0, counter(gateway, "backfill_failed"));
            assertEquals(0, counter(gateway, "backfill_namespaces_failed"));
            assertEquals(keys + counters, counter(gateway, "backfill_listed"));
            assertTrue(counter(gateway, "backfill_copied") > 0 && counter(gateway, "filled") > 0,
                    "both the backfill and the reads copied items");
            assertTrue(operations > 2 * (keys + counters), "traffic ran throughout: " + operations);
            assertTrue(stale.isEmpty(), stale.size() + " stale reads, e.g. " + stale.peek());
        }
        // The gateway is gone: memcached alone must answer every key as the last acknowledged write left it.
        try (BinaryClient direct = new BinaryClient(memcached.servers().port(0))) {
            for (int key = 0; key < keys + counters; key++) {
                String name = key < keys ? "k" + key : "c" + (key - keys);
                Response read = direct.get(name);
                if (expected[key] == null) {
                    assertEquals(NOT_FOUND, read.status(), name + " was deleted");
                } else {
                    assertEquals(OK, read.status(), name + " is in the new store");
                    assertEquals(expected[key], read.valueText().strip(), name);
                    if (started.get(key) == 0) {
                        assertEquals(3, read.flags(), name + " kept its flags");
                    }
                }
            }
        }
    }

    /**
     * A reload that drops the node mid-backfill: the backfill starts no copy after it, and the stores are closed only
     * once the copies under way are done, so none of them meets a store closed under it. memcached (new) is stopped
     * mid-backfill, so that copies wait for it across the reload.
     */
    @Test
    void aReloadClosesTheStoresOnlyOnceTheBackfillCopiesUnderWayAreDone() throws Exception {
        Map<String, String> initial = new HashMap<>();
        for (int i = 0; i < 40; i++) {
            initial.put("b" + i, "v" + i);
        }
        preload(initial, 0, 0);
        Map<String, String> live = new ConcurrentHashMap<>(settings("routes.move.backfill", "default",
                "routes.move.backfill_concurrency", "2", "routes.move.backfill_rate", "5",
                "backends.mc.timeout_ms", "5000",
                // No manifest refresh under way on the stopped memcached: the reload would wait for it as an operation.
                "collections.refresh_ms", "3600000"));
        try (TestGateway gateway = TestGateway.startReloadable(live)) {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (counter(gateway, "backfill_copied") < 2 && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            memcached.servers().pause(0, true);
            try {
                Thread.sleep(700); // at 5 copies a second, two copies now wait for memcached's answer to their add
                live.keySet().removeIf(key -> key.startsWith("routes.move.") || key.startsWith("backends.mc."));
                live.put("route", "default");
                String summary = gateway.gateway().reload();
                assertTrue(summary.contains("closed once idle [mc]"), summary);
                Thread.sleep(300);
                assertEquals(1, gateway.gateway().treesRetiring(), "two copies are under way: mc stays open");
            } finally {
                memcached.servers().pause(0, false);
            }
            deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (gateway.gateway().treesRetiring() > 0 && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertEquals(0, gateway.gateway().treesRetiring(), "closed once the copies were done");
            long copied = counter(gateway, "backfill_copied");
            Thread.sleep(600);
            assertEquals(copied, counter(gateway, "backfill_copied"), "no copy started after the reload");
            assertEquals(0, counter(gateway, "fill_failed"), "no copy met a store closed under it");
            assertEquals(0, counter(gateway, "backfill_failed"));
            assertEquals(0, counter(gateway, "backfill_done"));
            int held = 0;
            try (BinaryClient direct = new BinaryClient(memcached.servers().port(0))) {
                for (Map.Entry<String, String> entry : initial.entrySet()) {
                    Response read = direct.get(entry.getKey());
                    if (read.status() == OK) {
                        assertEquals(entry.getValue(), read.valueText(), entry.getKey());
                        held++;
                    }
                }
            }
            assertEquals(copied, held, "memcached holds every copy counted, the two under way included");
            assertTrue(held < initial.size(), "the backfill stopped part-way: " + held);
        }
    }

    /**
     * The number of the write a read saw: the last {@code w<n>} of a value, a counter's increments, or for
     * NOT_FOUND the latest delete of the key (a read may see NOT_FOUND only after a delete started).
     */
    private static long versionOf(String name, boolean plain, Response read, ConcurrentLinkedQueue<Long> deletes) {
        if (read.status() == OK) {
            String value = read.valueText().strip();
            if (!plain) {
                return Long.parseLong(value) - 1000;
            }
            return Long.parseLong(value.substring(value.lastIndexOf('w') + 1));
        }
        assertEquals(NOT_FOUND, read.status(), "a read of " + name + " failed");
        long latest = -1;
        for (long delete : deletes) {
            latest = Math.max(latest, delete);
        }
        assertNotEquals(-1, latest, "NOT_FOUND for " + name + ", never deleted");
        return latest;
    }
}
