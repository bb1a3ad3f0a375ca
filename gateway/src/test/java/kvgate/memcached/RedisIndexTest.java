package kvgate.memcached;

import static kvgate.testing.BinaryClient.FLUSH;
import static kvgate.testing.BinaryClient.NONE;
import static kvgate.testing.BinaryClient.NOOP;
import static kvgate.testing.BinaryClient.SETQ;
import static kvgate.testing.BinaryClient.bytes;
import static kvgate.testing.BinaryClient.frame;
import static kvgate.testing.BinaryClient.storeExtras;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import kvgate.testing.BinaryClient;
import kvgate.testing.RedisServers;
import kvgate.testing.TestGateway;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The Redis backend's namespace index does not outgrow the live items: Redis expires items on its own, and the
 * writes that follow take back the index entries of the expired ones, without any scan; curr_items counts the live
 * items. A flush empties a shard bigger than one flush script's chunk.
 */
@Tag("servers")
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
            // curr_items counts the live items the index lists (polled every second).
            long deadline = System.currentTimeMillis() + 5000;
            while (!MemcachedProtocolSuite.stats(client, "").get("curr_items").equals(Integer.toString(kept + expiring))
                    && System.currentTimeMillis() < deadline) {
                Thread.sleep(50);
            }
            assertEquals(Integer.toString(kept + expiring), MemcachedProtocolSuite.stats(client, "").get("curr_items"));
        }
    }

    @Test
    void aShardListingMoreThanOneFlushChunkIsFlushedWhole() throws Exception {
        try (RedisServers servers = RedisServers.standalone();
             TestGateway gateway = TestGateway.start(servers.backendSettings());
             BinaryClient client = new BinaryClient(gateway.port())) {
            int count = 2500; // a flush script takes 1000 members at a time
            ByteArrayOutputStream batch = new ByteArrayOutputStream();
            String first = sameShard("crowded");
            int shard = shard(first);
            int made = 0;
            for (int i = 0; made < count; i++) {
                String key = "crowded-" + i;
                if (shard(key) == shard) {
                    batch.write(frame(SETQ, storeExtras(0, 0), bytes(key), bytes("v"), 0, made++));
                }
            }
            batch.write(frame(NOOP, NONE, NONE, NONE, 0, count));
            client.send(batch.toByteArray());
            assertEquals(NOOP, client.read().opcode(), "every quiet set succeeded");
            assertEquals(count, indexSize(servers));
            assertEquals(0, client.call(FLUSH, NONE, NONE, NONE, 0).status());
            assertEquals(0, indexSize(servers));
            // The layout and the shard's CAS mark, which a flush keeps so that no CAS of the shard repeats.
            assertEquals("2", RedisServers.cli(servers.port(0), "DBSIZE").strip(), "only the layout and the mark left");
            assertEquals("1", RedisServers.cli(servers.port(0), "EXISTS", "kvgate:m{default#" + shard + "}").strip());
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
