package kvgate.route;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import kvgate.testing.BinaryClient;
import kvgate.testing.MemcachedServers;
import kvgate.testing.TestGateway;
import kvgate.testing.TextClient;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A warm-up backfill out of a memcached that its applications filled themselves, not through a gateway: the
 * memcached backend lists what each server holds ({@code lru_crawler metadump}), so every key moves, with its flags
 * and its remaining expiry. A server that will not list its items leaves the namespace to the key directory, which
 * knows nothing of these keys: the backfill says so rather than reporting itself done.
 */
@Tag("servers")
class BackfillFromMemcachedTest {
    private static final int KEYS = 600;

    /** A gateway moving the memcached pool {@code mc} into the local store {@code default}. */
    private static Map<String, String> migrating(MemcachedServers memcached) {
        Map<String, String> live = new ConcurrentHashMap<>(memcached.instance("mc"));
        live.putAll(Backfills.warmUpFrom("mc"));
        live.put("routes.move.backfill_concurrency", "16");
        return live;
    }

    /** Fills the server directly, as an application would: half the keys expire in an hour, flags differ. */
    private static void fill(MemcachedServers memcached) throws Exception {
        try (BinaryClient direct = memcached.client(0)) {
            for (int i = 0; i < KEYS; i++) {
                assertEquals(0, direct.set("app:" + i, "value " + i, i % 2 == 0 ? 42 : 7,
                        i % 2 == 0 ? 3600 : 0).status());
            }
        }
    }

    private static void awaitEnd(TestGateway gateway) throws InterruptedException {
        Backfills.awaitAny(gateway, 30, "backfill_done", "backfill_namespaces_failed");
    }

    @Test
    void everyKeyAnApplicationWroteMovesWithItsFlagsAndExpiry() throws Exception {
        try (MemcachedServers memcached = MemcachedServers.start(1)) {
            fill(memcached);
            Map<String, String> live = migrating(memcached);
            try (TestGateway gateway = TestGateway.startReloadable(live)) {
                awaitEnd(gateway);
                assertEquals(1, Backfills.counter(gateway, "backfill_done"));
                assertEquals(0, Backfills.counter(gateway, "backfill_namespaces_failed"));
                assertEquals(KEYS, Backfills.counter(gateway, "backfill_listed"));
                assertEquals(KEYS, Backfills.counter(gateway, "backfill_copied"));
                assertEquals(0, Backfills.counter(gateway, "backfill_failed"));

                // The old store off: what the new one holds is all there is.
                Backfills.retireOld(gateway, live);
                try (TextClient client = new TextClient(gateway.port())) {
                    for (int i = 0; i < KEYS; i += 37) {
                        String reply = client.call("mg app:" + i + " v f t\r\n");
                        String[] head = reply.split("\r\n")[0].split(" ");
                        assertEquals("VA", head[0], reply);
                        assertEquals("f" + (i % 2 == 0 ? 42 : 7), head[2], reply);
                        if (i % 2 == 0) {
                            long ttl = Long.parseLong(head[3].substring(1));
                            assertTrue(ttl > 3500 && ttl <= 3600, "remaining expiry " + ttl + ": " + reply);
                        } else {
                            assertEquals("t-1", head[3], reply);
                        }
                        assertEquals("value " + i, reply.split("\r\n")[1]);
                    }
                }
            }
        }
    }

    @Test
    void aServerThatWillNotListItsItemsLeavesTheBackfillUnfinishedAndSaysSo() throws Exception {
        try (MemcachedServers memcached = MemcachedServers.startWith(1, "-X")) {
            fill(memcached);
            try (TestGateway gateway = TestGateway.startReloadable(migrating(memcached))) {
                awaitEnd(gateway);
                assertEquals(1, Backfills.counter(gateway, "backfill_namespaces_failed"));
                assertEquals(0, Backfills.counter(gateway, "backfill_done"), "not done: the namespace was never listed");
                assertEquals(0, Backfills.counter(gateway, "backfill_copied"));
            }
        }
    }
}
