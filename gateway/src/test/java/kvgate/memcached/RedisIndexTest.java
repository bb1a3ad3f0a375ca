package kvgate.memcached;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import kvgate.testing.BinaryClient;
import kvgate.testing.RedisServers;
import kvgate.testing.TestGateway;
import org.junit.jupiter.api.Test;

/**
 * The Redis backend's namespace index does not outgrow the live items: Redis expires items on its own, and the
 * writes that follow take back the index entries of the expired ones, without any scan.
 */
class RedisIndexTest {
    /** The backend's index shards per namespace; with its shard function, mirrored here to aim writes at shards. */
    private static final int SHARDS = 1024;

    @Test
    void writesTakeBackTheIndexEntriesOfExpiredItems() throws Exception {
        try (RedisServers servers = RedisServers.standalone();
             TestGateway gateway = TestGateway.start(servers.backendSettings());
             BinaryClient client = new BinaryClient(gateway.port())) {
            int expiring = 20;
            int kept = 5;
            for (int i = 0; i < expiring; i++) {
                assertEquals(0, client.set("short-" + i, "v", 0, 1).status());
            }
            for (int i = 0; i < kept; i++) {
                assertEquals(0, client.set("long-" + i, "v", 0, 0).status());
            }
            assertEquals(expiring + kept, indexSize(servers));
            Thread.sleep(2100);
            // One write into the shard of each expired item, under another key: a memcached workload never scans.
            for (int i = 0; i < expiring; i++) {
                assertEquals(0, client.set(sameShard("short-" + i), "v", 0, 0).status());
            }
            assertEquals(kept + expiring, indexSize(servers), "only live items are listed");
            for (int i = 0; i < expiring; i++) {
                assertEquals(0x01, client.get("short-" + i).status());
            }
        }
    }

    /** Another key in the shard of {@code key}. */
    private static String sameShard(String key) {
        int shard = shard(key);
        for (int i = 0; ; i++) {
            String other = "other-" + key + "-" + i;
            if (shard(other) == shard) {
                return other;
            }
        }
    }

    private static int shard(String key) {
        return Math.floorMod(Arrays.hashCode(key.getBytes(StandardCharsets.UTF_8)), SHARDS);
    }

    /** The members of every index shard, read straight from Redis. */
    private static long indexSize(RedisServers servers) throws Exception {
        String total = RedisServers.cli(servers.port(0), "EVAL",
                "local n = 0 for _, k in ipairs(redis.call('KEYS', 'kvgate:x*')) do n = n + redis.call('ZCARD', k) end"
                        + " return n", "0");
        return Long.parseLong(total.strip());
    }
}
