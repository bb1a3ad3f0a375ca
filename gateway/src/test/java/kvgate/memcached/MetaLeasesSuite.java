package kvgate.memcached;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import kvgate.testing.BinaryClient;
import kvgate.testing.TestGateway;
import kvgate.testing.TextClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * memcached's leases through the meta commands, on a backend that keeps them: a placeholder or a stale item hands
 * the right to recache it to one client ({@code W}), tells the others another has it ({@code Z}), and says when what
 * it serves is stale ({@code X}). A subclass starts the gateway.
 */
abstract class MetaLeasesSuite {
    TestGateway gateway;
    private TextClient client;

    /** The gateway on the backend under test. */
    abstract TestGateway start() throws Exception;

    @BeforeEach
    void connect() throws Exception {
        gateway = start();
        client = new TextClient(gateway.port());
    }

    @AfterEach
    void stop() throws Exception {
        client.close();
        gateway.close();
    }

    @Test
    void leasesHandTheRightToRecacheToOneClient() throws Exception {
        String key = "lease"; // each test has a store of its own
        assertEquals("VA 0 s0 f0 W\r\n\r\n", client.call("mg " + key + " s f v N30\r\n"), "a placeholder won");
        try (TextClient other = new TextClient(gateway.port())) {
            assertEquals("VA 0 Z\r\n\r\n", other.call("mg " + key + " v N30\r\n"), "another client is told");
            assertEquals("HD\r\n", client.call("ms " + key + " 5 T100\r\nfresh\r\n"));
            assertEquals("VA 5\r\nfresh\r\n", other.call("mg " + key + " v R30\r\n"), "far from its expiry");
            assertEquals("VA 5 W\r\nfresh\r\n", other.call("mg " + key + " v R200\r\n"), "near enough");
            assertEquals("VA 5 Z\r\nfresh\r\n", client.call("mg " + key + " v R200\r\n"));
        }
        assertEquals("VALUE " + key + " 0 5\r\nfresh\r\nEND\r\n", client.call("get " + key + "\r\n"),
                "a classic get reads the item as it is");
    }

    @Test
    void invalidatedItemsAreServedStaleUntilRecached() throws Exception {
        String key = "stale";
        client.store("set", key, 3, 0, "old");
        long before = client.unique(key);
        assertEquals("HD\r\n", client.call("md " + key + " I T30\r\n"));
        long after = client.unique(key);
        assertTrue(after != before, "invalidation gives a new CAS");
        String first = client.call("mg " + key + " v f t\r\n");
        assertTrue(first.equals("VA 3 f3 t30 X W\r\nold\r\n") || first.equals("VA 3 f3 t29 X W\r\nold\r\n"),
                first);
        assertEquals("VA 3 Z X\r\nold\r\n", client.call("mg " + key + " v\r\n"));
        // A late writer's value, with the CAS it read before the invalidation: kept, and still stale.
        assertEquals("HD\r\n", client.call("ms " + key + " 4 C" + before + " I\r\nlate\r\n"));
        assertEquals("VA 4 Z X\r\nlate\r\n", client.call("mg " + key + " v\r\n"), "the win stays handed out");
        assertEquals("EX\r\n", client.call("ms " + key + " 4 C" + before + "\r\nlate\r\n"), "not without I");
        // The winner's value makes the item fresh.
        assertEquals("HD\r\n", client.call("ms " + key + " 3 C" + client.unique(key) + " I\r\nnew\r\n"));
        assertEquals("VA 3\r\nnew\r\n", client.call("mg " + key + " v\r\n"));
        assertEquals("NF\r\n", client.call("md none I\r\n"));
        assertEquals("EX\r\n", client.call("md " + key + " I C1\r\n"));
    }

    @Test
    void aWriteOverAnotherProtocolMakesTheItemFresh() throws Exception {
        client.store("set", "shared", 0, 0, "v1");
        assertEquals("HD\r\n", client.call("md shared I\r\n"));
        try (BinaryClient binary = new BinaryClient(gateway.port())) {
            binary.set("shared", "v2", 0, 0);
        }
        assertEquals("VA 2\r\nv2\r\n", client.call("mg shared v\r\n"), "neither stale nor handed out");
    }

    @Test
    void arithmeticInPlaceKeepsTheItemStale() throws Exception {
        client.store("set", "count", 0, 0, "10");
        assertEquals("HD\r\n", client.call("md count I\r\n"));
        assertEquals("VA 2\r\n11\r\n", client.call("ma count v\r\n"));
        assertEquals("VA 2 X W\r\n11\r\n", client.call("mg count v\r\n"), "11 took the place of 10");
        assertEquals("VA 3\r\n111\r\n", client.call("ma count D100 v\r\n"));
        assertEquals("VA 3\r\n111\r\n", client.call("mg count v\r\n"), "a longer number is a new item");
    }
}
