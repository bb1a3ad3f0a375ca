package kvgate.route;

import static kvgate.testing.OkuyamaClient.b64;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import kvgate.testing.OkuyamaClient;
import kvgate.testing.OkuyamaCluster;
import kvgate.testing.RedisServers;
import kvgate.testing.TestGateway;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A live move of an okuyama cluster's data into Redis Cluster through the warm-up node, as the runbook has it:
 * okuyama clients use the gateway throughout, reading and writing while the backfill copies what the cluster's
 * DataNodes list; at the end the cluster can go, and nothing its clients wrote or had is lost.
 */
@Tag("servers")
class BackfillFromOkuyamaTest {
    private static final int KEYS = 500;
    /** Expiring keys read before the backfill starts; none is one a writer rewrites (i % 11 is 2 or 3). */
    private static final int[] READ_FIRST = {0, 5, 10, 15, 20, 30, 40, 45};
    /** The keys okuyama's clients tagged t1. */
    private static final Set<String> TAGGED = IntStream.range(0, KEYS).filter(i -> i % 50 == 0)
            .mapToObj(i -> "app:" + i).collect(Collectors.toCollection(TreeSet::new));

    /** A tag's keys through okuyama's getTagKeys (3, answered as 4). */
    private static Set<String> tagKeys(OkuyamaClient okuyama, String tag) throws Exception {
        String reply = okuyama.call("3," + b64(tag) + ",true");
        assertTrue(reply.startsWith("4,true,"), reply);
        Set<String> keys = new TreeSet<>();
        for (String key : reply.substring(7).split(":")) {
            keys.add(OkuyamaClient.text(key));
        }
        return keys;
    }

    /**
     * A cluster whose DataNodes cannot be reached: the operator gives the keys in a file, and the backfill copies
     * those, saying how many remain as it goes.
     */
    @Test
    void aKeyFileStandsInForAClusterThatCannotBeListed(@TempDir Path directory) throws Exception {
        try (OkuyamaCluster cluster = OkuyamaCluster.start()) {
            List<String> keys = new ArrayList<>();
            try (OkuyamaClient direct = new OkuyamaClient(cluster.node().okuyamaPort())) {
                for (int i = 0; i < 200; i++) {
                    assertEquals("1,true,OK", direct.call("1," + b64("listed:" + i) + ",(B),0," + b64("v" + i)));
                    keys.add("listed:" + i);
                }
            }
            keys.add("never-written");
            Path keyFile = directory.resolve("keys");
            Files.write(keyFile, keys);
            Map<String, String> live = new ConcurrentHashMap<>();
            live.put("backends.okuyama.type", "okuyama");
            live.put("backends.okuyama.masters", cluster.address()); // no datanodes: no listing
            live.putAll(Backfills.warmUpFrom("okuyama"));
            live.put("routes.move.backfill_keys", keyFile.toString());
            live.put("routes.move.backfill_rate", "200");
            try (TestGateway gateway = TestGateway.startReloadable(live)) {
                String copying = "";
                for (int i = 0; i < 100 && !copying.contains("remaining"); i++) {
                    Thread.sleep(10);
                    copying = String.join("\n", gateway.gateway().routes().describe());
                }
                assertTrue(copying.contains("backfill copying namespace default (201 keys listed, "), copying);
                Backfills.awaitAny(gateway, 30, "backfill_done", "backfill_incomplete");
                assertEquals(1, Backfills.counter(gateway, "backfill_done"));
                assertEquals(200, Backfills.counter(gateway, "backfill_copied"));
                assertEquals(1, Backfills.counter(gateway, "backfill_skipped"), "the key okuyama does not hold");
                Backfills.retireOld(gateway, live);
                try (OkuyamaClient okuyama = new OkuyamaClient(gateway.okuyamaPort())) {
                    assertEquals("2,true," + b64("v199"), okuyama.call("2," + b64("listed:199")));
                }
            }
        }
    }

    @Test
    void aPopulatedClusterMovesToRedisClusterUnderLiveReadersAndWriters() throws Exception {
        try (OkuyamaCluster cluster = OkuyamaCluster.start(); RedisServers redis = RedisServers.cluster(3)) {
            try (OkuyamaClient direct = new OkuyamaClient(cluster.node().okuyamaPort())) {
                for (int i = 0; i < KEYS; i++) {
                    String expiry = i % 5 == 0 ? ",3600," : "";
                    String tags = i % 50 == 0 ? b64("t1") : "(B)"; // okuyama's own tags, as its clients give them
                    assertEquals("1,true,OK", direct.call("1," + b64("app:" + i) + "," + tags + ",0,"
                            + b64("value " + i) + expiry));
                }
            }
            Map<String, String> live = new ConcurrentHashMap<>(redis.backendSettings());
            live.putAll(cluster.instance("okuyama"));
            live.putAll(Backfills.warmUpFrom("okuyama"));
            live.put("routes.move.backfill_rate", "2000"); // slow enough that the clients work during the move
            live.put("routes.move.backfill_concurrency", "8");
            live.remove("routes.move.backfill"); // as the runbook has it: clients first, then the backfill
            try (TestGateway gateway = TestGateway.startReloadable(live)) {
                // Reads copy some expiring keys before the backfill comes, without their expiry (okuyama's reads do
                // not tell it); no writer touches these.
                try (OkuyamaClient okuyama = new OkuyamaClient(gateway.okuyamaPort())) {
                    for (int i : READ_FIRST) {
                        assertEquals("2,true," + b64("value " + i), okuyama.call("2," + b64("app:" + i)));
                    }
                }
                live.put("routes.move.backfill", "default");
                live.put("routes.move.backfill_tags", "t1");
                gateway.gateway().reload();
                // Clients switched to the gateway: readers of the old keys, writers of old and new ones.
                Map<String, String> written = new ConcurrentHashMap<>();
                AtomicBoolean moving = new AtomicBoolean(true);
                AtomicLong reads = new AtomicLong();
                ExecutorService clients = Executors.newFixedThreadPool(4);
                List<Future<?>> work = new ArrayList<>();
                for (int c = 0; c < 4; c++) {
                    int client = c;
                    work.add(clients.submit(() -> {
                        try (OkuyamaClient okuyama = new OkuyamaClient(gateway.okuyamaPort())) {
                            for (int round = 0; moving.get(); round++) {
                                int i = (round * 7 + client * 131) % KEYS;
                                String key = "app:" + i;
                                if (client < 2) {
                                    String reply = okuyama.call("2," + b64(key));
                                    // Never missing; the cluster's value, or one a writer wrote over it.
                                    assertTrue(reply.startsWith("2,true,"), key + " " + reply);
                                    String value = OkuyamaClient.text(reply.substring(7));
                                    assertTrue(value.equals("value " + i) || value.startsWith("rewritten "),
                                            key + " " + value);
                                    reads.incrementAndGet();
                                } else if (i % 11 == client) {
                                    String value = "rewritten " + round;
                                    assertEquals("1,true,OK", okuyama.call("1," + b64(key) + ",(B),0," + b64(value)));
                                    written.put(key, value);
                                } else {
                                    String fresh = "new:" + client + ":" + round;
                                    assertEquals("1,true,OK", okuyama.call("1," + b64(fresh) + ",(B),0,"
                                            + b64("fresh " + round)));
                                    written.put(fresh, "fresh " + round);
                                }
                            }
                        }
                        return null;
                    }));
                }
                // While the data moves, a tag lists its keys wherever they are: okuyama's own links included.
                try (OkuyamaClient okuyama = new OkuyamaClient(gateway.okuyamaPort())) {
                    assertEquals(TAGGED, tagKeys(okuyama, "t1"));
                }
                Backfills.awaitAny(gateway, 60, "backfill_done", "backfill_namespaces_failed", "backfill_incomplete");
                moving.set(false);
                for (Future<?> client : work) {
                    client.get(30, TimeUnit.SECONDS);
                }
                clients.shutdown();
                assertEquals(1, Backfills.counter(gateway, "backfill_done"));
                assertEquals(KEYS, Backfills.counter(gateway, "backfill_listed"), "every key once");
                assertEquals(TAGGED.size(), Backfills.counter(gateway, "backfill_tagged"));
                String routes = String.join("\n", gateway.gateway().routes().describe());
                assertTrue(routes.contains("move (route warmup): backfill done"), routes);
                assertEquals(0, Backfills.counter(gateway, "backfill_failed"));
                assertEquals(0, Backfills.counter(gateway, "backfill_verify_differs"));
                assertTrue(reads.get() > 100, "reads served during the move: " + reads.get());

                // okuyama switched off: Redis Cluster holds every key, with the last value written, and expiries kept.
                Backfills.retireOld(gateway, live);
                cluster.node().close();
                try (OkuyamaClient okuyama = new OkuyamaClient(gateway.okuyamaPort())) {
                    assertEquals(TAGGED, tagKeys(okuyama, "t1"), "the tag's links moved with its keys");
                    for (int i = 0; i < KEYS; i++) {
                        String key = "app:" + i;
                        assertEquals("2,true," + b64(written.getOrDefault(key, "value " + i)),
                                okuyama.call("2," + b64(key)), key);
                    }
                    for (var entry : written.entrySet()) {
                        assertEquals("2,true," + b64(entry.getValue()), okuyama.call("2," + b64(entry.getKey())),
                                entry.getKey());
                    }
                }
                // Every fifth key expires in an hour, and still does: those a read copied first too, since a read
                // could not tell the expiry (okuyama's reads do not) and the backfill gave it from the export.
                assertTrue(Backfills.counter(gateway, "backfill_expiry_set") >= READ_FIRST.length,
                        "copies made by reads given their expiry: " + Backfills.counter(gateway, "backfill_expiry_set"));
                try (kvgate.testing.TextClient text = new kvgate.testing.TextClient(gateway.port())) {
                    for (int i = 0; i < KEYS; i += 5) {
                        String reply = text.call("mg app:" + i + " t\r\n");
                        if (written.containsKey("app:" + i)) {
                            continue; // rewritten without an expiry
                        }
                        long ttl = Long.parseLong(reply.strip().split(" ")[1].substring(1));
                        assertTrue(ttl > 3500 && ttl <= 3600, "app:" + i + " " + reply);
                    }
                }
            }
        }
    }
}
