package kvgate.memcached;

import static kvgate.testing.BinaryClient.*;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Map;
import kvgate.testing.BinaryClient;
import kvgate.testing.BinaryClient.Response;
import kvgate.testing.ChildGateway;
import kvgate.testing.MemcachedServers;
import kvgate.testing.TestGateway;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A manifest lives in the backend: a gateway killed after setting it is followed by one that has it in force, two
 * gateway processes on one shared backend agree on it within the refresh bound, and one that memcached lost is
 * written back by a gateway that has it in force.
 */
@Tag("servers")
class ManifestPersistenceTest {
    private static final String MANIFEST = "{\"uid\":\"7b\",\"scopes\":[{\"name\":\"_default\",\"uid\":\"0\","
            + "\"collections\":[{\"name\":\"_default\",\"uid\":\"0\"},{\"name\":\"orders\",\"uid\":\"8\"}]},"
            + "{\"name\":\"shop\",\"uid\":\"9\",\"collections\":[{\"name\":\"carts\",\"uid\":\"a\"}]}]}";

    @Test
    void aManifestSetBeforeAKillIsInForceAfterTheRestart(@TempDir Path data) throws Exception {
        try (ChildGateway child = ChildGateway.start(data.resolve("gateway.log"), "local.path=" + data)) {
            try (BinaryClient c = new BinaryClient(child.port())) {
                assertArrayEquals(new int[] {COLLECTIONS}, c.hello(COLLECTIONS));
                assertEquals(0, c.setManifest(MANIFEST).status());
                assertEquals(0, c.call(SET, storeExtras(3, 0), collectionKey(0xa, "cart-1"), bytes("apples"), 0)
                        .status());
            }
            child.kill();
        }
        try (TestGateway gateway = TestGateway.start(Map.of("local.path", data.toString()));
             BinaryClient c = new BinaryClient(gateway.port())) {
            assertArrayEquals(new int[] {COLLECTIONS}, c.hello(COLLECTIONS));
            Response manifest = c.call(GET_COLLECTIONS_MANIFEST, NONE, NONE, NONE, 0);
            assertEquals(MANIFEST, manifest.valueText());
            Response id = c.call(GET_COLLECTION_ID, NONE, NONE, bytes("shop.carts"), 0);
            assertEquals(0, id.status());
            assertEquals(0x7b, ByteBuffer.wrap(id.extras()).getLong());
            Response cart = c.call(GET, NONE, collectionKey(0xa, "cart-1"), NONE, 0);
            assertEquals("apples", cart.valueText());
            assertEquals(3, cart.flags());
            assertEquals(0x0022, c.setManifest(MANIFEST.replace("7b", "7a")).status(), "the uid is remembered");
        }
    }

    @Test
    void aManifestSetThroughOneGatewayIsInForceOnAnotherProcessWithinTheBound(@TempDir Path logs) throws Exception {
        long bound = 400;
        try (MemcachedServers servers = MemcachedServers.start(1);
             ChildGateway other = ChildGateway.start(logs.resolve("other.log"), "backend=memcached",
                     "memcached.servers=" + servers.serverList(), "collections.refresh_ms=" + bound);
             TestGateway here = TestGateway.start(Map.of("backend", "memcached",
                     "memcached.servers", servers.serverList(), "collections.refresh_ms", Long.toString(bound)));
             BinaryClient there = new BinaryClient(other.port());
             BinaryClient c = new BinaryClient(here.port())) {
            assertArrayEquals(new int[] {COLLECTIONS}, there.hello(COLLECTIONS));
            assertArrayEquals(new int[] {COLLECTIONS}, c.hello(COLLECTIONS));
            assertEquals(0x008c, c.call(GET_COLLECTION_ID, NONE, NONE, bytes("shop.carts"), 0).status(),
                    "no such scope before the set");
            assertEquals(0, there.setManifest(MANIFEST).status());
            long setAt = System.nanoTime();
            Response id;
            do {
                id = c.call(GET_COLLECTION_ID, NONE, NONE, bytes("shop.carts"), 0);
            } while (id.status() != 0 && System.nanoTime() - setAt < 10_000_000_000L);
            long elapsedMillis = (System.nanoTime() - setAt) / 1_000_000;
            assertEquals(0, id.status(), "the other gateway's manifest never arrived");
            assertTrue(elapsedMillis <= bound + 1000, "in force after " + elapsedMillis + " ms, bound " + bound);
            assertEquals(0xa, ByteBuffer.wrap(id.extras()).getInt(8));
            // And the other way round: a write into the new collection here is read there.
            assertEquals(0, c.call(SET, storeExtras(0, 0), collectionKey(0xa, "cart-2"), bytes("pears"), 0).status());
            assertEquals("pears", there.call(GET, NONE, collectionKey(0xa, "cart-2"), NONE, 0).valueText());
        }
    }

    @Test
    void aManifestMemcachedLostIsWrittenBackForTheGatewaysStartedAfter() throws Exception {
        long bound = 200;
        MemcachedServers servers = MemcachedServers.start(1);
        Map<String, String> onServers = Map.of("collections.refresh_ms", Long.toString(bound));
        try (TestGateway first = TestGateway.start(servers, onServers);
             BinaryClient c = new BinaryClient(first.port());
             BinaryClient direct = new BinaryClient(servers.port(0))) {
            assertArrayEquals(new int[] {COLLECTIONS}, c.hello(COLLECTIONS));
            assertEquals(0, c.setManifest(MANIFEST).status());
            // The memcached backend keys an item of another namespace 0x01 <namespace> 0x02 <key>.
            String stored = "\u0001kvgate:manifests\u0002default";
            assertEquals(0, direct.get(stored).status());
            // Everything memcached holds goes, as an eviction of the manifest's item would take it.
            assertEquals(0, direct.call(FLUSH, NONE, NONE, NONE, 0).status());
            long lostAt = System.nanoTime();
            while (direct.get(stored).status() != 0) {
                assertTrue(System.nanoTime() - lostAt < 10_000_000_000L, "the manifest never came back");
                Thread.sleep(20);
            }
            try (TestGateway later = TestGateway.start(Map.of("backend", "memcached",
                    "memcached.servers", servers.serverList(), "collections.refresh_ms", Long.toString(bound)));
                 BinaryClient there = new BinaryClient(later.port())) {
                assertArrayEquals(new int[] {COLLECTIONS}, there.hello(COLLECTIONS));
                assertEquals(MANIFEST, there.call(GET_COLLECTIONS_MANIFEST, NONE, NONE, NONE, 0).valueText());
                assertEquals(0x0022, there.setManifest(MANIFEST.replace("7b", "7a")).status(),
                        "the uid is remembered");
            }
        }
    }
}
