package kvgate.memcached.binary;

import static kvgate.testing.BinaryClient.*;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HexFormat;
import java.util.Map;
import kvgate.testing.BinaryClient;
import kvgate.testing.BinaryClient.Response;
import kvgate.testing.TestGateway;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Couchbase's alternative request framing (magic 0x08) and its framing extras, over a real socket on the local
 * store: negotiation, Preserve TTL on every command that takes it, and every frame info refused the way a Couchbase
 * server refuses it. Preserve TTL on the other backends is the protocol suite's.
 */
class FlexibleFramingTest {
    private static final int MAX_ITEM_SIZE = 4096;
    private static TestGateway gateway;

    @BeforeAll
    static void start() throws Exception {
        gateway = TestGateway.start(Map.of("max_item_size", Integer.toString(MAX_ITEM_SIZE)));
    }

    @AfterAll
    static void stop() {
        gateway.close();
    }

    /** A client that negotiated the alternative framing and Preserve TTL. */
    private static BinaryClient flexible() throws Exception {
        BinaryClient c = new BinaryClient(gateway.port());
        assertArrayEquals(new int[] {ALT_REQUEST, PRESERVE_TTL}, c.hello(ALT_REQUEST, PRESERVE_TTL));
        return c;
    }

    private static Response call(BinaryClient c, int opcode, byte[] framing, byte[] extras, String key, String value,
                                 long cas) throws Exception {
        c.send(altFrame(opcode, framing, extras, bytes(key), bytes(value), cas, 0x4242));
        Response reply = c.read();
        assertEquals(0x81, reply.magic(), "replies keep the classic framing");
        assertEquals(opcode, reply.opcode());
        assertEquals(0x4242, reply.opaque());
        return reply;
    }

    private static int now() {
        return (int) (System.currentTimeMillis() / 1000);
    }

    private static void assertNear(int expected, int actual, String what) {
        assertTrue(Math.abs(expected - actual) <= 2, what + ": " + actual + ", not about " + expected);
    }


    @Test
    void theAlternativeFramingIsServedOnlyWhileNegotiated() throws Exception {
        try (BinaryClient c = new BinaryClient(gateway.port())) {
            // A binary request first: the first byte of a connection chooses its protocol, and 0x80 is binary.
            c.assertUsable();
            // Never negotiated: a clean error, the frame skipped by its length.
            assertEquals(0x0004, call(c, GET, NONE, NONE, "alt-key", "", 0).status());
            c.assertUsable();
            // HELLO and a request in the new framing in one write: the second is read once the first has granted it.
            c.send(frame(HELLO, NONE, bytes("agent"), new byte[] {0, ALT_REQUEST}, 0, 1),
                    altFrame(SET, NONE, storeExtras(7, 0), bytes("alt-key"), bytes("alt-value"), 0, 2));
            assertArrayEquals(new byte[] {0, ALT_REQUEST}, c.read().value());
            Response set = c.read();
            assertEquals(0, set.status());
            assertEquals(2, set.opaque());
            Response get = call(c, GET, NONE, NONE, "alt-key", "", 0);
            assertEquals("alt-value", get.valueText());
            assertEquals(7, get.flags());
            assertEquals(set.cas(), get.cas());
            // A new HELLO without the feature takes it back.
            assertArrayEquals(new int[0], c.hello(0x03));
            assertEquals(0x0004, call(c, GET, NONE, NONE, "alt-key", "", 0).status());
            c.assertUsable();
        }
    }

    @Test
    void preserveTtlKeepsTheExpiryOfTheItemASetOrReplaceChanges() throws Exception {
        try (BinaryClient c = flexible()) {
            int hour = now() + 3600;
            assertEquals(0, c.set("keep", "v1", 0, 3600).status());
            assertNear(hour, c.expiry("keep"), "the first set's expiry");
            assertEquals(0, call(c, SET, PRESERVE_TTL_INFO, storeExtras(1, 0), "keep", "v2", 0).status());
            assertNear(hour, c.expiry("keep"), "kept through a set without one");
            assertEquals(0, call(c, REPLACE, PRESERVE_TTL_INFO, storeExtras(2, 60), "keep", "v3", 0).status());
            assertNear(hour, c.expiry("keep"), "kept through a replace with another");
            Response read = c.get("keep");
            assertEquals("v3", read.valueText(), "the value and flags change all the same");
            assertEquals(2, read.flags());
            // A quiet set is silent, and keeps it too.
            c.send(altFrame(SETQ, PRESERVE_TTL_INFO, storeExtras(0, 0), bytes("keep"), bytes("v4"), 0, 3),
                    frame(NOOP, NONE, NONE, NONE, 0, 4));
            assertEquals(4, c.read().opaque());
            assertEquals("v4", c.get("keep").valueText());
            assertNear(hour, c.expiry("keep"), "kept through a quiet set");
            // Without the frame info, in either framing, the request's expiry applies.
            assertEquals(0, call(c, SET, NONE, storeExtras(0, 0), "keep", "v5", 0).status());
            assertEquals(0, c.expiry("keep"), "an alternative-framing set without Preserve TTL");
        }
    }

    @Test
    void preserveTtlGivesAnItemItCreatesTheRequestsExpiry() throws Exception {
        try (BinaryClient c = flexible()) {
            assertEquals(0, call(c, SET, PRESERVE_TTL_INFO, storeExtras(0, 120), "created", "v", 0).status());
            assertNear(now() + 120, c.expiry("created"), "a new item's expiry");
            assertEquals(0, call(c, SET, PRESERVE_TTL_INFO, storeExtras(0, 0), "created-forever", "v", 0).status());
            assertEquals(0, c.expiry("created-forever"));
            assertEquals(0x0001, call(c, REPLACE, PRESERVE_TTL_INFO, storeExtras(0, 0), "absent", "v", 0).status(),
                    "a replace still needs an item");
        }
    }

    @Test
    void preserveTtlKeepsTheCasCheck() throws Exception {
        try (BinaryClient c = flexible()) {
            long cas = c.set("cas-keep", "v1", 0, 600).cas();
            assertEquals(0x0002, call(c, SET, PRESERVE_TTL_INFO, storeExtras(0, 0), "cas-keep", "v2", cas + 1)
                    .status());
            Response set = call(c, SET, PRESERVE_TTL_INFO, storeExtras(0, 0), "cas-keep", "v2", cas);
            assertEquals(0, set.status());
            assertTrue(set.cas() != cas);
            assertNear(now() + 600, c.expiry("cas-keep"), "kept");
        }
    }

    @Test
    void appendPrependAndArithmeticTakePreserveTtlAndKeepTheExpiryAsAlways() throws Exception {
        try (BinaryClient c = flexible()) {
            int later = now() + 900;
            c.set("joined", "5", 0, 900);
            assertEquals(0, call(c, APPEND, PRESERVE_TTL_INFO, NONE, "joined", "0", 0).status());
            assertEquals(0, call(c, PREPEND, PRESERVE_TTL_INFO, NONE, "joined", "1", 0).status());
            Response incremented = call(c, INCREMENT, PRESERVE_TTL_INFO, arithmeticExtras(2, 0, 0), "joined", "", 0);
            assertEquals(0, incremented.status());
            assertEquals(152, incremented.number());
            assertNear(later, c.expiry("joined"), "kept");
        }
    }

    @Test
    void preserveTtlOnACommandThatDoesNotTakeItIsNotSupportedAndChangesNothing() throws Exception {
        try (BinaryClient c = flexible()) {
            c.set("untouched", "v", 0, 0);
            assertEquals(0x0083, call(c, ADD, PRESERVE_TTL_INFO, storeExtras(0, 0), "never-added", "v", 0).status());
            assertEquals(0x0001, c.get("never-added").status());
            assertEquals(0x0083, call(c, TOUCH, PRESERVE_TTL_INFO, u32(60), "untouched", "", 0).status());
            assertEquals(0x0083, call(c, GAT, PRESERVE_TTL_INFO, u32(60), "untouched", "", 0).status());
            assertEquals(0, c.expiry("untouched"));
            assertEquals(0x0083, call(c, DELETE, PRESERVE_TTL_INFO, NONE, "untouched", "", 0).status());
            assertEquals(0x0083, call(c, GET, PRESERVE_TTL_INFO, NONE, "untouched", "", 0).status());
            assertEquals("v", c.get("untouched").valueText());
        }
    }

    @Test
    void subDocumentMutationsKeepTheDocumentsExpiryWithPreserveTtl() throws Exception {
        try (BinaryClient c = flexible()) {
            int later = now() + 1200;
            c.set("doc", "{\"a\":1}", 0, 1200);
            Response kept = call(c, SUBDOC_DICT_UPSERT, PRESERVE_TTL_INFO, subdocExtras("b", 0), "doc",
                    new String(pathAndValue("b", "2")), 0);
            assertEquals(0, kept.status());
            assertEquals("{\"a\":1,\"b\":2}", c.get("doc").valueText());
            assertNear(later, c.expiry("doc"), "kept through a single-path mutation");
            byte[] spec = mutationSpec(SUBDOC_COUNTER, 0, "a", "5");
            c.send(altFrame(SUBDOC_MULTI_MUTATION, PRESERVE_TTL_INFO, NONE, bytes("doc"), spec, 0, 5));
            assertEquals(0, c.read().status());
            assertNear(later, c.expiry("doc"), "kept through a multi-path mutation");
            // Without it, a mutation that gives no expiry clears it, as before.
            c.send(altFrame(SUBDOC_MULTI_MUTATION, NONE, NONE, bytes("doc"), spec, 0, 6));
            assertEquals(0, c.read().status());
            assertEquals(0, c.expiry("doc"));
            // A document the mutation creates takes the request's expiry.
            c.send(altFrame(SUBDOC_MULTI_MUTATION, PRESERVE_TTL_INFO, concat(u32(300), new byte[] {1}),
                    bytes("new-doc"), spec, 0, 7));
            assertEquals(0, c.read().status());
            assertNear(now() + 300, c.expiry("new-doc"), "a created document's expiry");
            assertEquals(0x0083, call(c, SUBDOC_GET, PRESERVE_TTL_INFO, subdocExtras("a", 0), "doc", "a", 0)
                    .status(), "a lookup does not take it");
        }
    }

    @Test
    void malformedUnknownAndUnservedFrameInfosAreRefusedAsCouchbaseRefusesThem() throws Exception {
        Object[][] cases = {
                // framing extras, opcode, status
                {new byte[] {0x00}, SET, 0x0000},                          // a barrier: requests already run in order
                {new byte[] {0x01, 0}, SET, 0x0004},                       // a barrier with data
                {new byte[] {0x22, 0, 1}, SET, 0x0000},                    // a DCP stream id: nothing to act on
                {new byte[] {0x21, 0}, SET, 0x0004},                       // one of the wrong size
                {new byte[] {0x30}, SET, 0x0080},                          // id 3: not in use
                {new byte[] {(byte) 0x80}, SET, 0x0080},                   // id 8: none such yet
                {new byte[] {(byte) 0xf0, 5}, SET, 0x0080},                // id 15 + 5, escaped
                {new byte[] {(byte) 0xf0}, SET, 0x0004},                   // the escape's byte missing
                {new byte[] {0x0f}, SET, 0x0004},                          // a length escape without its byte
                {new byte[] {0x53, 1, 2, 3}, SET, 0x0004},                 // Preserve TTL with data
                {new byte[] {0x50, 0x52, 1}, SET, 0x0004},                 // the second info runs past the end
                {new byte[] {0x11, 1}, SET, 0x00a1},                       // majority: not promised here
                {new byte[] {0x13, 3, 0, 100}, REPLACE, 0x00a1},           // persist to majority within 100 ms
                {new byte[] {0x11, 0}, SET, 0x00a0},                       // level 0
                {new byte[] {0x11, 4}, SET, 0x00a0},                       // level 4
                {new byte[] {0x13, 1, 0, 0}, SET, 0x00a0},                 // timeout 0, reserved
                {new byte[] {0x13, 1, (byte) 0xff, (byte) 0xff}, SET, 0x00a0}, // timeout 0xffff, reserved
                {new byte[] {0x12, 1, 0}, SET, 0x0004},                    // two bytes: neither form
                {new byte[] {0x11, 1}, GET, 0x0004},                       // a read takes no durability
                {new byte[] {0x11, 1}, SETQ, 0x0004},                      // nor a quiet write
                {new byte[] {0x43, 'b', 'o', 'b'}, GET, 0x0024},           // impersonation: no one may
                {new byte[] {0x40}, GET, 0x0004},                          // impersonating no one
                {new byte[] {0x63, 'a', 'b', 'c'}, GET, 0x0024},           // an extra privilege
                {new byte[] {0x72, 0, 1}, GET, 0x0024},                    // a token id
                {new byte[] {0x71, 0}, GET, 0x0004},                       // a token id of one byte
                {new byte[] {0x50, 0x50}, SET, 0x0000},                    // Preserve TTL twice
        };
        try (BinaryClient c = flexible()) {
            for (Object[] one : cases) {
                byte[] framing = (byte[]) one[0];
                int opcode = (int) one[1];
                String what = HexFormat.of().formatHex(framing) + " on 0x" + Integer.toHexString(opcode);
                byte[] extras = opcode == GET ? NONE : storeExtras(0, 0);
                c.send(altFrame(opcode, framing, extras, bytes("framed"), opcode == GET ? NONE : bytes("v"), 0, 9),
                        frame(NOOP, NONE, NONE, NONE, 0, 10));
                Response reply = c.read();
                assertEquals((int) one[2], reply.status(), what);
                assertEquals(9, reply.opaque(), what);
                assertEquals(NOOP, c.read().opcode(), what + ": the connection goes on");
            }
        }
    }

    @Test
    void framingExtrasLongerThanTheBodyAreInvalidAndTheConnectionGoesOn() throws Exception {
        try (BinaryClient c = flexible()) {
            byte[] bad = altFrame(GET, new byte[] {0x50}, NONE, bytes("k"), NONE, 0, 12);
            bad[2] = 3; // three bytes of framing extras in a body of two
            c.send(bad, frame(NOOP, NONE, NONE, NONE, 0, 13));
            Response reply = c.read();
            assertEquals(0x0004, reply.status());
            assertEquals(12, reply.opaque());
            assertEquals(13, c.read().opaque(), "the connection goes on");
        }
    }

    @Test
    void aTooLargeSetInTheAlternativeFramingRemovesTheOldValueAsAClassicOneDoes() throws Exception {
        try (BinaryClient c = flexible()) {
            c.set("large", "old", 0, 0);
            Response reply = call(c, SET, PRESERVE_TTL_INFO, storeExtras(0, 0), "large", "x".repeat(MAX_ITEM_SIZE + 1),
                    0);
            assertEquals(0x0003, reply.status());
            assertEquals(0x0001, c.get("large").status(), "the key is read from behind the framing extras");
            c.assertUsable();
        }
    }
}
