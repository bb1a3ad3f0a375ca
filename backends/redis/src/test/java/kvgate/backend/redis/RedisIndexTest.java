package kvgate.backend.redis;

import static kvgate.testing.BackendUnderTest.bytes;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import kvgate.spi.Item;
import kvgate.spi.Namespace;
import kvgate.spi.Operation;
import kvgate.spi.Result;
import kvgate.spi.Status;
import kvgate.spi.StoreMode;
import kvgate.testing.BackendUnderTest;
import kvgate.testing.RedisServers;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The Redis backend's namespace index does not outgrow the live items: Redis expires items on its own, and the
 * writes that follow take back the index entries of the expired ones, without any scan; curr_items counts the live
 * items. A flush empties a shard bigger than one flush script's chunk.
 */
@Tag("servers")
class RedisIndexTest {
    private static final Namespace NAMESPACE = Namespace.DEFAULT;

    @Test
    void writesTakeBackTheIndexEntriesOfExpiredItems() throws Exception {
        try (RedisServers servers = RedisServers.standalone(); BackendUnderTest redis = open(servers)) {
            int expiring = 20;
            int kept = 5;
            long inASecond = System.currentTimeMillis() + 1000;
            for (int i = 0; i < expiring; i++) {
                assertEquals(Status.OK, redis.run(set("short-" + i, inASecond)).status());
            }
            for (int i = 0; i < kept; i++) {
                assertEquals(Status.OK, redis.run(set("long-" + i, Item.NEVER)).status());
            }
            assertEquals(expiring + kept, indexSize(servers));
            Thread.sleep(2100);
            // One write into the shard of each expired item, under another key: a memcached workload never scans.
            for (int i = 0; i < expiring; i++) {
                assertEquals(Status.OK, redis.run(set(sameShard("short-" + i), Item.NEVER)).status());
            }
            assertEquals(kept + expiring, indexSize(servers), "only live items are listed");
            for (int i = 0; i < expiring; i++) {
                assertEquals(Status.NOT_FOUND, redis.run(new Operation.Get(NAMESPACE, bytes("short-" + i))).status());
            }
            // curr_items counts the live items the index lists (polled every second).
            String live = Integer.toString(kept + expiring);
            long deadline = System.currentTimeMillis() + 5000;
            while (!live.equals(redis.backend().stats().get("curr_items")) && System.currentTimeMillis() < deadline) {
                Thread.sleep(50);
            }
            assertEquals(live, redis.backend().stats().get("curr_items"));
        }
    }

    @Test
    void aShardListingMoreThanOneFlushChunkIsFlushedWhole() throws Exception {
        try (RedisServers servers = RedisServers.standalone(); BackendUnderTest redis = open(servers)) {
            int count = 2500; // a flush script takes 1000 members at a time
            int shard = KeyLayout.shardOf(bytes(sameShard("crowded")));
            List<Operation> batch = new ArrayList<>();
            for (int i = 0; batch.size() < count; i++) {
                String key = "crowded-" + i;
                if (KeyLayout.shardOf(bytes(key)) == shard) {
                    batch.add(set(key, Item.NEVER));
                }
            }
            for (CompletionStage<Result> stored : redis.backend().executeAll(batch)) {
                assertEquals(Status.OK, stored.toCompletableFuture().get(10, TimeUnit.SECONDS).status());
            }
            assertEquals(count, indexSize(servers));
            assertEquals(Status.OK, redis.run(new Operation.Flush(NAMESPACE, 0)).status());
            assertEquals(0, indexSize(servers));
            // The layout and the shard's CAS mark, which a flush keeps so that no CAS of the shard repeats.
            assertEquals("2", RedisServers.cli(servers.port(0), "DBSIZE").strip(), "only the layout and the mark left");
            assertEquals("1", RedisServers.cli(servers.port(0), "EXISTS", "kvgate:m{default#" + shard + "}").strip());
        }
    }

    private static BackendUnderTest open(RedisServers servers) throws Exception {
        return new BackendUnderTest(new RedisBackendFactory(),
                BackendUnderTest.under("redis", servers.backendSettings()));
    }

    private static Operation set(String key, long expiresAt) {
        return new Operation.Store(NAMESPACE, bytes(key), StoreMode.SET, bytes("v"), 0, expiresAt, 0);
    }

    /** Another key in the shard of {@code key}. */
    private static String sameShard(String key) {
        int shard = KeyLayout.shardOf(bytes(key));
        for (int i = 0; ; i++) {
            String other = "other-" + key + "-" + i;
            if (KeyLayout.shardOf(bytes(other)) == shard) {
                return other;
            }
        }
    }

    /** The members of every index shard, read straight from Redis. */
    private static long indexSize(RedisServers servers) throws Exception {
        String total = RedisServers.cli(servers.port(0), "EVAL",
                "local n = 0 for _, k in ipairs(redis.call('KEYS', 'kvgate:x*')) do n = n + redis.call('ZCARD', k) end"
                        + " return n", "0");
        return Long.parseLong(total.strip());
    }
}
