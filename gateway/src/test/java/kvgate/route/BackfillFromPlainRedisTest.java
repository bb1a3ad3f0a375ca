package kvgate.route;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import kvgate.testing.RedisServers;
import kvgate.testing.TestGateway;
import kvgate.testing.TextClient;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A Redis Cluster that an application filled itself, with plain string keys: the Redis backend in the plain layout
 * lists every master's string keys for the warm-up node's backfill, which moves them, values and remaining TTLs, into
 * the local store; keys of other types are passed over, and nothing of the gateway's is written to that Redis.
 */
@Tag("servers")
class BackfillFromPlainRedisTest {
    private static final int KEYS = 120;

    @Test
    void everyStringKeyOfEveryMasterMovesWithItsTtl() throws Exception {
        try (RedisServers cluster = RedisServers.cluster(3)) {
            int seed = cluster.port(0);
            for (int i = 0; i < KEYS; i++) {
                if (i % 2 == 0) {
                    RedisServers.cli(seed, "-c", "SET", "app:" + i, "value " + i, "EX", "3600");
                } else {
                    RedisServers.cli(seed, "-c", "SET", "app:" + i, "value " + i);
                }
            }
            RedisServers.cli(seed, "-c", "HSET", "a-hash", "field", "not an item");
            RedisServers.cli(seed, "-c", "RPUSH", "a-list", "not an item either");
            Map<String, String> live = new ConcurrentHashMap<>();
            live.put("backends.old.type", "redis");
            live.put("backends.old.cluster", cluster.backendSettings().get("redis.cluster"));
            live.put("backends.old.layout", "plain");
            live.putAll(Backfills.warmUpFrom("old"));
            live.put("routes.move.backfill_verify", Integer.toString(KEYS));
            try (TestGateway gateway = TestGateway.startReloadable(live)) {
                Backfills.awaitAny(gateway, 60, "backfill_done", "backfill_incomplete");
                assertEquals(1, Backfills.counter(gateway, "backfill_done"), gateway.gateway().routes().describe().toString());
                assertEquals(KEYS, Backfills.counter(gateway, "backfill_listed"));
                assertEquals(KEYS, Backfills.counter(gateway, "backfill_copied"));
                assertEquals(0, Backfills.counter(gateway, "backfill_verify_differs"));

                // The old store off: what the local store holds is all there is.
                Backfills.retireOld(gateway, live);
                try (TextClient client = new TextClient(gateway.port())) {
                    for (int i = 0; i < KEYS; i += 11) {
                        String reply = client.call("mg app:" + i + " v t\r\n");
                        String[] head = reply.split("\r\n")[0].split(" ");
                        assertEquals("VA", head[0], reply);
                        assertEquals("value " + i, reply.split("\r\n")[1]);
                        if (i % 2 == 0) {
                            long ttl = Long.parseLong(head[2].substring(1));
                            assertTrue(ttl > 3500 && ttl <= 3600, reply);
                        } else {
                            assertEquals("t-1", head[2], reply);
                        }
                    }
                }
            }
            for (int node = 0; node < 3; node++) {
                String keys = RedisServers.cli(cluster.port(node), "KEYS", "kvgate*");
                assertEquals("", keys.strip(), "nothing of the gateway's in the application's Redis");
            }
        }
    }
}
