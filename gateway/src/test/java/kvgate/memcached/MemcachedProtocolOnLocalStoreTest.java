package kvgate.memcached;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import kvgate.testing.BinaryClient;
import kvgate.testing.TestGateway;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The memcached protocol suite on the embedded local store, and what the store adds of its own. */
class MemcachedProtocolOnLocalStoreTest extends MemcachedProtocolSuite {
    @BeforeAll
    static void start() throws Exception {
        gateway = TestGateway.start();
    }

    @Test
    void aFullStoreInMemoryEvictsAndSaysSoInItsStats() throws Exception {
        int written = 8_000;
        try (TestGateway limited = TestGateway.start(Map.of("local.path", ":memory:", "local.memory_limit", "1m"));
             BinaryClient c = new BinaryClient(limited.port())) {
            // About three times what the store may hold, in as few round trips as keep the eviction fine-grained.
            String value = "v".repeat(400);
            for (int i = 0; i < written; i++) {
                assertEquals(0, c.set("key" + i, value, 0, 0).status(), "set " + i);
            }
            Map<String, String> stats = c.stats("");
            assertEquals(Long.toString(1 << 20), stats.get("limit_maxbytes"));
            long bytes = Long.parseLong(stats.get("bytes"));
            long items = Long.parseLong(stats.get("curr_items"));
            assertTrue(bytes <= 1 << 20 && bytes > (1 << 20) * 8 / 10, bytes + " bytes held");
            assertEquals(written - items, Long.parseLong(stats.get("evictions")), "every item not held was evicted");
            // Which items went is MemoryBudgetTest's: here all were stored within a second or two, alike to LRU.
            // Every key reads whole or not at all, and as many read whole as the store counts.
            int found = 0;
            for (int i = 0; i < written; i++) {
                BinaryClient.Response read = c.get("key" + i);
                if (read.status() == 0) {
                    assertEquals(value, read.valueText(), "key" + i);
                    found++;
                } else {
                    assertEquals(0x0001, read.status(), "key" + i);
                }
            }
            assertEquals(items, found);
        }
    }
}
