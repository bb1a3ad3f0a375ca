package kvgate.route;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.HashMap;
import java.util.Map;
import kvgate.testing.BinaryClient;
import kvgate.testing.RedisServers;
import kvgate.testing.TestGateway;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A warm-up backfill out of a Redis Cluster that other gateways filled: every item of every master is listed, copied
 * with its flags, and the verification finds the stores alike; pooled clients reading and writing meanwhile see the
 * new store answer.
 */
@Tag("servers")
class BackfillFromRedisClusterTest {
    private static final int KEYS = 500;

    @Test
    void everyItemOfEveryMasterMovesAndTheVerificationFindsNoDifference() throws Exception {
        try (RedisServers cluster = RedisServers.cluster(3)) {
            try (TestGateway filler = TestGateway.start(cluster.backendSettings());
                 BinaryClient client = new BinaryClient(filler.port())) {
                for (int i = 0; i < KEYS; i++) {
                    assertEquals(0, client.set("item:" + i, "value " + i, i, 0).status());
                }
            }
            Map<String, String> settings = new HashMap<>();
            settings.put("backends.old.type", "redis");
            settings.put("backends.old.cluster", cluster.backendSettings().get("redis.cluster"));
            settings.put("backends.old.timeout_ms", "5000");
            settings.putAll(Backfills.warmUpFrom("old"));
            settings.put("routes.move.backfill_concurrency", "8");
            settings.put("routes.move.backfill_verify", Integer.toString(KEYS));
            try (TestGateway gateway = TestGateway.start(settings);
                 BinaryClient writer = new BinaryClient(gateway.port());
                 BinaryClient reader = new BinaryClient(gateway.port())) {
                // Clients go on meanwhile, on two connections: a write is read back on the other.
                for (int i = 0; i < 50; i++) {
                    assertEquals(0, writer.set("item:" + i, "changed " + i, 1000 + i, 0).status());
                    BinaryClient.Response read = reader.get("item:" + i);
                    assertEquals("changed " + i, read.valueText());
                    assertEquals(1000 + i, read.flags());
                }
                Backfills.awaitAny(gateway, 60, "backfill_done", "backfill_incomplete");
                assertEquals(1, Backfills.counter(gateway, "backfill_done"));
                assertEquals(KEYS, Backfills.counter(gateway, "backfill_listed"));
                assertEquals(KEYS, Backfills.counter(gateway, "backfill_copied") + Backfills.counter(gateway, "backfill_skipped"));
                assertEquals(0, Backfills.counter(gateway, "backfill_failed"));
                assertEquals(KEYS, Backfills.counter(gateway, "backfill_verify_checked"));
                assertEquals(0, Backfills.counter(gateway, "backfill_verify_differs"));
                for (int i = 0; i < KEYS; i += 7) {
                    BinaryClient.Response read = reader.get("item:" + i);
                    assertEquals(i < 50 ? "changed " + i : "value " + i, read.valueText());
                    assertEquals(i < 50 ? 1000 + i : i, read.flags());
                }
                String routes = String.join("\n", gateway.gateway().routes().describe());
                assertEquals(true, routes.contains("move (route warmup): backfill done; 0 of " + KEYS
                        + " keys compared differ between the stores"), routes);
            }
        }
    }
}
