package kvgate.memcached;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import kvgate.testing.TestGateway;
import net.spy.memcached.BinaryConnectionFactory;
import net.spy.memcached.CASResponse;
import net.spy.memcached.CASValue;
import net.spy.memcached.MemcachedClient;
import org.junit.jupiter.api.Test;

/** A widely used Java memcached client, in binary mode, works against the gateway unchanged. */
class SpymemcachedClientTest {

    @Test
    void aRealBinaryClientStoresReadsCountsAndMultiGets() throws Exception {
        try (TestGateway gateway = TestGateway.start()) {
            MemcachedClient client = new MemcachedClient(new BinaryConnectionFactory(),
                    List.of(new InetSocketAddress("127.0.0.1", gateway.port())));
            try {
                assertTrue(client.set("spy-a", 0, "alpha").get(5, TimeUnit.SECONDS));
                assertEquals("alpha", client.get("spy-a"));
                assertFalse(client.add("spy-a", 0, "again").get(5, TimeUnit.SECONDS));
                CASValue<Object> cas = client.gets("spy-a");
                assertEquals(CASResponse.OK, client.cas("spy-a", cas.getCas(), "beta"));
                assertEquals(CASResponse.EXISTS, client.cas("spy-a", cas.getCas(), "gamma"));
                assertEquals("beta", client.get("spy-a"));
                assertEquals(10, client.incr("spy-n", 5, 10));
                assertEquals(15, client.incr("spy-n", 5, 10));
                assertEquals(12, client.decr("spy-n", 3));
                assertTrue(client.append(0, "spy-a", "!").get(5, TimeUnit.SECONDS));
                List<String> keys = new ArrayList<>();
                for (int i = 0; i < 200; i++) {
                    keys.add("spy-bulk-" + i);
                    if (i % 2 == 0) {
                        client.set("spy-bulk-" + i, 0, "v" + i);
                    }
                }
                Map<String, Object> bulk = client.getBulk(keys);
                assertEquals(100, bulk.size());
                assertEquals("v42", bulk.get("spy-bulk-42"));
                assertTrue(client.delete("spy-a").get(5, TimeUnit.SECONDS));
                assertNull(client.get("spy-a"));
                assertTrue(client.touch("spy-n", 100).get(5, TimeUnit.SECONDS));
                assertFalse(client.getVersions().values().iterator().next().isEmpty());
                Map<String, String> stats = client.getStats().values().iterator().next();
                assertTrue(Long.parseLong(stats.get("cmd_get")) > 0, stats.toString());
                assertTrue(client.flush().get(5, TimeUnit.SECONDS));
                assertNull(client.get("spy-bulk-0"));
            } finally {
                client.shutdown(5, TimeUnit.SECONDS);
            }
        }
    }
}
