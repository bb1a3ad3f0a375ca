package kvgate.route;

import static kvgate.testing.OkuyamaClient.b64;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import kvgate.testing.OkuyamaClient;
import kvgate.testing.OkuyamaCluster;
import kvgate.testing.RedisServers;
import kvgate.testing.TestGateway;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A live move of an okuyama cluster's data into Redis through the warm-up node: okuyama clients use the gateway
 * throughout, reading and writing while the backfill copies what the cluster's DataNodes list; at the end the
 * cluster can go, and nothing its clients wrote or had is lost.
 */
@Tag("servers")
class BackfillFromOkuyamaTest {
    private static final int KEYS = 500;

    @Test
    void aPopulatedClusterMovesToRedisUnderLiveReadersAndWriters() throws Exception {
        try (OkuyamaCluster cluster = OkuyamaCluster.start(); RedisServers redis = RedisServers.standalone()) {
            try (OkuyamaClient direct = new OkuyamaClient(cluster.node().okuyamaPort())) {
                for (int i = 0; i < KEYS; i++) {
                    String expiry = i % 5 == 0 ? ",3600," : "";
                    assertEquals("1,true,OK", direct.call("1," + b64("app:" + i) + ",(B),0," + b64("value " + i)
                            + expiry));
                }
            }
            Map<String, String> live = new ConcurrentHashMap<>(redis.backendSettings());
            live.putAll(cluster.instance("okuyama"));
            live.putAll(Backfills.warmUpFrom("okuyama"));
            live.put("routes.move.backfill_rate", "2000"); // slow enough that the clients work during the move
            live.put("routes.move.backfill_concurrency", "8");
            try (TestGateway gateway = TestGateway.startReloadable(live)) {
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
                                if (client < 2 && i % 5 == 0) {
                                    // A read's fill cannot carry an expiry (okuyama's reads do not tell it): the
                                    // expiring keys move through the backfill, which reads it from the export.
                                    i++;
                                }
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
                Backfills.awaitAny(gateway, 60, "backfill_done", "backfill_namespaces_failed", "backfill_incomplete");
                moving.set(false);
                for (Future<?> client : work) {
                    client.get(30, TimeUnit.SECONDS);
                }
                clients.shutdown();
                assertEquals(1, Backfills.counter(gateway, "backfill_done"));
                assertEquals(KEYS, Backfills.counter(gateway, "backfill_listed"));
                assertEquals(0, Backfills.counter(gateway, "backfill_failed"));
                assertEquals(0, Backfills.counter(gateway, "backfill_verify_differs"));
                assertTrue(reads.get() > 100, "reads served during the move: " + reads.get());

                // okuyama switched off: Redis holds every key, with the last value written, and expiries kept.
                Backfills.retireOld(gateway, live);
                cluster.node().close();
                try (OkuyamaClient okuyama = new OkuyamaClient(gateway.okuyamaPort())) {
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
                try (kvgate.testing.TextClient text = new kvgate.testing.TextClient(gateway.port())) {
                    for (int i = 0; i < KEYS; i += 25) { // every fifth key expires in an hour, and still does
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
