package kvgate.memcached;

import static kvgate.testing.BinaryClient.*;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import kvgate.testing.BinaryClient;
import kvgate.testing.BinaryClient.Response;
import kvgate.testing.TestGateway;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Couchbase collections on the memcached listener, over a real socket: HELLO, collection ids in keys, the four
 * collections commands with their shape and validation rules, unknown collection and scope replies, dropped
 * collections, maxTTL, and buckets. Each test works in a bucket of its own, as manifest uids only go forward.
 */
class CollectionsProtocolTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static TestGateway gateway;

    @BeforeAll
    static void start() throws Exception {
        gateway = TestGateway.start(Map.of(
                "buckets", "default, hello, leb, example, shape, rules, lookup, unknown, ttl, plain, pipelined, big",
                "collections.max_scopes", "3",
                "collections.max_collections", "4",
                "collections.refresh_ms", "100"));
    }

    @AfterAll
    static void stop() {
        gateway.close();
    }

    @Test
    void theGatewaysOwnManifestReadsAreNotCountedAsClientRequests() throws Exception {
        try (BinaryClient c = new BinaryClient(gateway.port())) {
            Map<String, String> before = c.stats("");
            // Every bucket's manifest is read again every 50 ms (half of refresh_ms): a dozen buckets, many reads.
            Thread.sleep(300);
            Map<String, String> after = c.stats("");
            for (String stat : new String[] {"cmd_get", "get_hits", "get_misses", "cmd_set"}) {
                assertEquals(before.get(stat), after.get(stat), stat);
            }
        }
    }

    /** A connection with collections negotiated and {@code bucket} selected. */
    private static BinaryClient collections(String bucket) throws Exception {
        BinaryClient c = new BinaryClient(gateway.port());
        assertArrayEquals(new int[] {COLLECTIONS, XERROR, JSON_FEATURE}, c.hello(COLLECTIONS, XERROR, JSON_FEATURE));
        select(c, bucket);
        return c;
    }

    private static final int JSON_FEATURE = BinaryClient.JSON;

    private static void select(BinaryClient c, String bucket) throws Exception {
        assertEquals(0, c.call(SELECT_BUCKET, NONE, bytes(bucket), NONE, 0).status(), "select " + bucket);
    }

    /** A manifest with the default scope (default collection plus {@code defaultCollections}) and more scopes. */
    private static String manifest(String uid, String defaultCollections, String... scopes) {
        StringBuilder json = new StringBuilder("{\"uid\":\"" + uid + "\",\"scopes\":[{\"name\":\"_default\","
                + "\"uid\":\"0\",\"collections\":[{\"name\":\"_default\",\"uid\":\"0\"}");
        if (!defaultCollections.isEmpty()) {
            json.append(',').append(defaultCollections);
        }
        json.append("]}");
        for (String scope : scopes) {
            json.append(',').append(scope);
        }
        return json.append("]}").toString();
    }

    private static Response store(BinaryClient c, int opcode, byte[] key, String value, int expiry) throws Exception {
        return c.call(opcode, storeExtras(0, expiry), key, bytes(value), 0);
    }

    private static Response get(BinaryClient c, byte[] key) throws Exception {
        return c.call(GET, NONE, key, NONE, 0);
    }

    private static JsonNode body(Response r) throws Exception {
        return JSON.readTree(r.value());
    }

    @Test
    void helloGrantsCollectionsXerrorSelectBucketAndJsonOnlyAndANewHelloResets() throws Exception {
        try (BinaryClient c = new BinaryClient(gateway.port())) {
            // TcpNoDelay, MutationSeqno, Snappy, SyncReplication and an unknown code are dropped; the client's order.
            assertArrayEquals(new int[] {0x0b, 0x12, 0x08, 0x10, 0x07, 0x14},
                    c.hello(0x03, 0x0b, 0x04, 0x12, 0x0a, 0x08, 0x10, 0x11, 0x07, 0x14, 0x7777));
            assertArrayEquals(new int[] {0x12}, c.hello(0x12, 0x12), "a feature is granted once");
            select(c, "hello");
            assertEquals(0x88, store(c, SET, collectionKey(8, "k"), "v", 0).status(), "collection 8 is unknown");
            assertEquals(0, store(c, SET, collectionKey(0, "k"), "in-default", 0).status());
            assertArrayEquals(new int[0], c.hello(0x03), "nothing asked that can be granted");
            // Collections are off again: the key is taken whole, so 0x00 'k' is another key than 'k'.
            Response plain = get(c, bytes("k"));
            assertEquals(0, plain.status());
            assertEquals("in-default", plain.valueText());
            assertEquals(0x0001, get(c, collectionKey(0, "k")).status());
        }
    }

    @Test
    void malformedCollectionIdsAreInvalidAndTheConnectionStays() throws Exception {
        try (BinaryClient c = collections("leb")) {
            byte[][] invalid = {
                    {(byte) 0x81, 0x00, 'k'},                                              // 1, not canonical
                    {(byte) 0x81, (byte) 0x80, 0x00, 'k'},                                  // 1, not canonical
                    {(byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, 0x00}, // 0 in six bytes
                    {(byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, 'k'},  // no stop byte in five
                    {(byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, 0x1f, 'k'},         // over 32 bits
                    {(byte) 0x80},                                                          // no stop byte at all
                    {0x00},                                                                 // a prefix, no key
            };
            for (byte[] key : invalid) {
                String shown = HexFormat.of().formatHex(key);
                assertEquals(0x0004, get(c, key).status(), "get " + shown);
                assertEquals(0x0004, store(c, SET, key, "v", 0).status(), "set " + shown);
                assertEquals(0x0004, c.call(DELETE, NONE, key, NONE, 0).status(), "delete " + shown);
            }
            assertEquals(0, store(c, SET, collectionKey(0, "still-usable"), "yes", 0).status());
            assertEquals("yes", get(c, collectionKey(0, "still-usable")).valueText());
        }
    }

    @Test
    void keyLimitsCountTheCollectionIdWithinTwoHundredFiftyOneBytes() throws Exception {
        try (BinaryClient c = collections("leb")) {
            assertEquals(0, c.setManifest(manifest("1", "{\"name\":\"long\",\"uid\":\"cafef00d\"}")).status());
            assertEquals(0, store(c, SET, collectionKey(0, "d".repeat(250)), "v", 0).status(), "251 bytes in all");
            assertEquals(0x0004, store(c, SET, collectionKey(0, "d".repeat(251)), "v", 0).status());
            assertEquals(5 + 1, collectionKey(0xcafef00dL, "x").length, "a five-byte collection id");
            assertEquals(0, store(c, SET, collectionKey(0xcafef00dL, "c".repeat(246)), "v", 0).status());
            assertEquals(0x0004, store(c, SET, collectionKey(0xcafef00dL, "c".repeat(247)), "v", 0).status(),
                    "a collection key over 246 bytes");
            assertEquals("v", get(c, collectionKey(0xcafef00dL, "c".repeat(246))).valueText());
        }
    }

    /**
     * The document's 44-byte ADD of "Hello" / "World" into collection 555 (0x22b, LEB128 0xab 0x04). Its header
     * declares a total body of 0x12 (18) bytes while its own layout has 8 + 7 + 5 = 20: sent byte for byte, the
     * header rules, so the value is "Wor" and "ld" begins the next frame. With the body length the layout implies
     * (0x14), the same bytes store "World".
     */
    @Test
    void theDocumentsAddExampleIsParsedByteForByte() throws Exception {
        byte[] asDocumented = HexFormat.of().parseHex(
                "80020007" + "08000000" + "00000012" + "00000000" + "00000000" + "00000000"
                        + "deadbeef" + "00000e10" + "ab04" + "48656c6c6f" + "576f726c64");
        assertEquals(44, asDocumented.length);
        try (BinaryClient c = collections("example")) {
            assertEquals(0, c.setManifest(manifest("1", "{\"name\":\"c555\",\"uid\":\"22b\"}")).status());
            c.send(asDocumented);
            assertAdded(c.read());
        }
        try (BinaryClient c = collections("example")) {
            Response read = get(c, new byte[] {(byte) 0xab, 0x04, 'H', 'e', 'l', 'l', 'o'});
            assertEquals(0, read.status());
            assertEquals("Wor", read.valueText(), "the body is as long as the header says");
            assertEquals(0xdeadbeef, read.flags());
            assertEquals(0x0001, get(c, collectionKey(0, "Hello")).status(), "the default collection is another");

            byte[] consistent = asDocumented.clone();
            consistent[11] = 0x14;
            c.send(consistent);
            Response exists = c.read();
            assertEquals(0x0002, exists.status(), "the key is there already: add fails");
            c.call(DELETE, NONE, new byte[] {(byte) 0xab, 0x04, 'H', 'e', 'l', 'l', 'o'}, NONE, 0);
            c.send(consistent);
            assertAdded(c.read());
            assertEquals("World", get(c, collectionKey(0x22b, "Hello")).valueText());
        }
    }

    private static void assertAdded(Response added) {
        assertEquals(0x81, added.magic());
        assertEquals(0x02, added.opcode());
        assertEquals(0, added.status());
        assertEquals(0, added.opaque());
        assertTrue(added.cas() != 0, "an add answers the new CAS");
        assertEquals(0, added.extras().length + added.key().length + added.value().length);
    }

    @Test
    void collectionsCommandsRefuseEveryWrongRequestShape() throws Exception {
        try (BinaryClient c = collections("shape")) {
            byte[] manifest = bytes(manifest("1", ""));
            int[][] shapes = {
                    // opcode, datatype, vbucket, extras, key, value(0 none, 1 manifest), cas
                    {SET_COLLECTIONS_MANIFEST, 0, 0, 4, 0, 1, 0},
                    {SET_COLLECTIONS_MANIFEST, 0, 0, 0, 1, 1, 0},
                    {SET_COLLECTIONS_MANIFEST, 0, 0, 0, 0, 0, 0},
                    {SET_COLLECTIONS_MANIFEST, 1, 0, 0, 0, 1, 0},
                    {SET_COLLECTIONS_MANIFEST, 0, 3, 0, 0, 1, 0},
                    {SET_COLLECTIONS_MANIFEST, 0, 0, 0, 0, 1, 7},
                    {GET_COLLECTIONS_MANIFEST, 0, 0, 4, 0, 0, 0},
                    {GET_COLLECTIONS_MANIFEST, 0, 0, 0, 1, 0, 0},
                    {GET_COLLECTIONS_MANIFEST, 0, 0, 0, 0, 1, 0},
                    {GET_COLLECTIONS_MANIFEST, 1, 0, 0, 0, 0, 0},
                    {GET_COLLECTIONS_MANIFEST, 0, 3, 0, 0, 0, 0},
                    {GET_COLLECTIONS_MANIFEST, 0, 0, 0, 0, 0, 7},
                    {GET_COLLECTION_ID, 0, 0, 4, 1, 0, 0},
                    {GET_COLLECTION_ID, 1, 0, 0, 1, 0, 0},
                    {GET_COLLECTION_ID, 0, 3, 0, 1, 0, 0},
                    {GET_COLLECTION_ID, 0, 0, 0, 1, 0, 7},
                    {GET_SCOPE_ID, 0, 0, 4, 1, 0, 0},
                    {GET_SCOPE_ID, 1, 0, 0, 1, 0, 0},
                    {GET_SCOPE_ID, 0, 3, 0, 1, 0, 0},
                    {GET_SCOPE_ID, 0, 0, 0, 1, 0, 7},
            };
            for (int[] shape : shapes) {
                byte[] key = shape[4] == 0 ? NONE : bytes(shape[0] >= GET_COLLECTION_ID ? "." : "k");
                c.send(frame(shape[0], shape[1], shape[2], new byte[shape[3]], key, shape[5] == 0 ? NONE : manifest,
                        shape[6], 9));
                Response r = c.read();
                assertEquals(0x0004, r.status(), "shape " + Arrays.toString(shape));
                assertEquals(shape[0], r.opcode());
            }
            assertEquals(0x0004, c.call(GET_COLLECTION_ID, NONE, bytes("."), bytes("."), 0).status(),
                    "a path in the key and in the value");
            assertEquals(0x0004, c.call(GET_SCOPE_ID, NONE, bytes("_default"), bytes("_default"), 0).status());
            assertEquals(0, c.call(GET_COLLECTIONS_MANIFEST, NONE, NONE, NONE, 0).status(), "still usable");
        }
    }

    @Test
    void everyValidationRuleAnswersItsStatus() throws Exception {
        try (BinaryClient c = collections("rules")) {
            String c8 = "{\"name\":\"c8\",\"uid\":\"8\"}";
            Map<String, String> invalid = new LinkedHashMap<>();
            invalid.put("invalid JSON", "{\"uid\":");
            invalid.put("not an object", "[]");
            invalid.put("no uid", "{\"scopes\":[{\"name\":\"_default\",\"uid\":\"0\"}]}");
            invalid.put("no scopes", "{\"uid\":\"5\"}");
            invalid.put("uid not a string", "{\"uid\":5,\"scopes\":[{\"name\":\"_default\",\"uid\":\"0\"}]}");
            invalid.put("uid not hex", manifest("5g", ""));
            invalid.put("scope without name", "{\"uid\":\"5\",\"scopes\":[{\"uid\":\"0\"}]}");
            invalid.put("collection name not a string", manifest("5", "{\"name\":8,\"uid\":\"8\"}"));
            invalid.put("maxTTL not an integer", manifest("5", "{\"name\":\"t\",\"uid\":\"8\",\"maxTTL\":\"1\"}"));
            invalid.put("max_ttl negative", manifest("5", "{\"name\":\"t\",\"uid\":\"8\",\"max_ttl\":-1}"));
            invalid.put("name with a space", manifest("5", "{\"name\":\"a b\",\"uid\":\"8\"}"));
            invalid.put("user name starting with %", manifest("5", "{\"name\":\"%a\",\"uid\":\"8\"}"));
            invalid.put("$ reserved", manifest("5", "{\"name\":\"$a\",\"uid\":\"8\"}"));
            invalid.put("$ in a user name", manifest("5", "{\"name\":\"a$\",\"uid\":\"8\"}"));
            invalid.put("name of 252", manifest("5", "{\"name\":\"" + "n".repeat(252) + "\",\"uid\":\"8\"}"));
            invalid.put("empty name", manifest("5", "{\"name\":\"\",\"uid\":\"8\"}"));
            invalid.put("reserved collection id", manifest("5", "{\"name\":\"r\",\"uid\":\"7\"}"));
            invalid.put("reserved scope id", manifest("5", "", "{\"name\":\"s\",\"uid\":\"1\"}"));
            invalid.put("duplicate collection id", manifest("5", c8, "{\"name\":\"s\",\"uid\":\"8\","
                    + "\"collections\":[{\"name\":\"x\",\"uid\":\"8\"}]}"));
            invalid.put("duplicate scope id", manifest("5", "", "{\"name\":\"s\",\"uid\":\"9\"}",
                    "{\"name\":\"t\",\"uid\":\"9\"}"));
            invalid.put("duplicate scope name", manifest("5", "", "{\"name\":\"s\",\"uid\":\"9\"}",
                    "{\"name\":\"s\",\"uid\":\"a\"}"));
            invalid.put("duplicate collection name", manifest("5", c8 + ",{\"name\":\"c8\",\"uid\":\"9\"}"));
            invalid.put("default scope missing", "{\"uid\":\"5\",\"scopes\":[{\"name\":\"s\",\"uid\":\"9\"}]}");
            invalid.put("too many scopes", manifest("5", "", "{\"name\":\"s\",\"uid\":\"9\"}",
                    "{\"name\":\"t\",\"uid\":\"a\"}", "{\"name\":\"u\",\"uid\":\"b\"}"));
            invalid.put("too many collections", manifest("5", c8 + ",{\"name\":\"c9\",\"uid\":\"9\"}",
                    "{\"name\":\"s\",\"uid\":\"9\",\"collections\":[{\"name\":\"x\",\"uid\":\"a\"},"
                            + "{\"name\":\"y\",\"uid\":\"b\"}]}"));
            for (var entry : invalid.entrySet()) {
                Response r = c.setManifest(entry.getValue());
                assertEquals(0x0004, r.status(), entry.getKey());
                assertTrue(body(r).path("error").path("context").isTextual(), entry.getKey() + ": a context");
            }
            assertEquals(0, c.setManifest(manifest("5", c8)).status());
            assertEquals(0, c.setManifest(manifest("5", c8)).status(), "the same manifest again");
            assertEquals(0x0022, c.setManifest(manifest("4", c8)).status(), "uid going backwards");
            assertEquals(0x008a, c.setManifest(manifest("5", "")).status(), "same uid, other collections");
            assertEquals(0x008a, c.setManifest(manifest("6", "{\"name\":\"renamed\",\"uid\":\"8\"}")).status(),
                    "collection 8 renamed");
            // At the limits (3 scopes, 4 collections), both TTL spellings, a system collection and a long name.
            String atLimits = manifest("6", c8 + ",{\"name\":\"_sys$\",\"uid\":\"9\",\"max_ttl\":5}",
                    "{\"name\":\"s\",\"uid\":\"9\",\"collections\":[{\"name\":\"" + "n".repeat(251) + "\","
                            + "\"uid\":\"a\",\"maxTTL\":7}]}", "{\"name\":\"t\",\"uid\":\"a\"}");
            assertEquals(0, c.setManifest(atLimits).status());
            Response current = c.call(GET_COLLECTIONS_MANIFEST, NONE, NONE, NONE, 0);
            assertEquals(0, current.status());
            assertEquals(atLimits, current.valueText(), "Get Collections Manifest returns the manifest as set");
        }
    }

    @Test
    void getCollectionsManifestBeforeAnySetIsTheDefaultManifest() throws Exception {
        try (BinaryClient c = collections("plain")) {
            Response r = c.call(GET_COLLECTIONS_MANIFEST, NONE, NONE, NONE, 0);
            assertEquals(0, r.status());
            JsonNode manifest = body(r);
            assertEquals("0", manifest.path("uid").textValue());
            assertEquals("_default", manifest.path("scopes").path(0).path("collections").path(0).path("name")
                    .textValue());
        }
    }

    @Test
    void collectionAndScopeIdsAreFoundByPathInKeyOrValue() throws Exception {
        try (BinaryClient c = collections("lookup")) {
            assertEquals(0, c.setManifest(manifest("2a", "{\"name\":\"c1\",\"uid\":\"8\"}",
                    "{\"name\":\"App1\",\"uid\":\"9\",\"collections\":[{\"name\":\"c1\",\"uid\":\"c\"}]}")).status());
            Object[][] collections = {{"_default.c1", 8}, {".c1", 8}, {"_default._default", 0}, {".", 0},
                    {"App1.c1", 0xc}, {"_default.", 0}};
            for (Object[] expected : collections) {
                String path = (String) expected[0];
                for (boolean inKey : new boolean[] {true, false}) {
                    Response r = c.call(GET_COLLECTION_ID, NONE, inKey ? bytes(path) : NONE,
                            inKey ? NONE : bytes(path), 0);
                    assertEquals(0, r.status(), path);
                    assertEquals(12, r.extras().length, path);
                    assertEquals(0, r.key().length + r.value().length);
                    ByteBuffer extras = ByteBuffer.wrap(r.extras());
                    assertEquals(0x2a, extras.getLong(), "the manifest uid");
                    assertEquals((int) expected[1], extras.getInt(), path);
                }
            }
            Object[][] scopes = {{"_default", 0}, {"", 0}, {"App1", 9}, {"App1.c1", 9}, {"App1.anything", 9},
                    {".c1", 0}};
            for (Object[] expected : scopes) {
                String path = (String) expected[0];
                Response r = c.call(GET_SCOPE_ID, NONE, NONE, bytes(path), 0);
                assertEquals(0, r.status(), "scope path '" + path + "'");
                ByteBuffer extras = ByteBuffer.wrap(r.extras());
                assertEquals(0x2a, extras.getLong());
                assertEquals((int) expected[1], extras.getInt(), path);
            }
            for (String path : new String[] {"c1", "", "a.b.c", "$x.c1", "App1.%c", "App 1.c1"}) {
                assertEquals(0x0004, c.call(GET_COLLECTION_ID, NONE, NONE, bytes(path), 0).status(),
                        "collection path '" + path + "'");
            }
            for (String path : new String[] {"a.b.c", "$x", "App 1"}) {
                assertEquals(0x0004, c.call(GET_SCOPE_ID, NONE, NONE, bytes(path), 0).status(),
                        "scope path '" + path + "'");
            }
            Response noScope = c.call(GET_COLLECTION_ID, NONE, NONE, bytes("App2.c1"), 0);
            assertEquals(0x008c, noScope.status());
            assertEquals("2a", body(noScope).path("manifest_uid").textValue());
            assertEquals("2a", body(noScope).path("error").path("context").textValue());
            Response noCollection = c.call(GET_COLLECTION_ID, NONE, NONE, bytes("App1.c2"), 0);
            assertEquals(0x0088, noCollection.status());
            assertEquals("2a", body(noCollection).path("manifest_uid").textValue());
            assertEquals(0x008c, c.call(GET_SCOPE_ID, NONE, NONE, bytes("App2"), 0).status());
        }
    }

    @Test
    void unknownCollectionRepliesWithManifestUidInBothForms() throws Exception {
        try (BinaryClient c = collections("unknown")) {
            assertEquals(0, c.setManifest(manifest("1f", "")).status());
            int[] documentOpcodes = {GET, GETK, SET, ADD, REPLACE, DELETE, APPEND, PREPEND, INCREMENT, DECREMENT,
                    TOUCH, GAT, GETQ, GETKQ, SETQ, GATQ};
            for (int opcode : documentOpcodes) {
                byte[] extras = switch (opcode) {
                    case SET, ADD, REPLACE, SETQ -> storeExtras(0, 0);
                    case INCREMENT, DECREMENT -> arithmeticExtras(1, 0, 0);
                    case TOUCH, GAT, GATQ -> u32(0);
                    default -> NONE;
                };
                byte[] value = opcode == APPEND || opcode == PREPEND || opcode == SET || opcode == ADD
                        || opcode == REPLACE || opcode == SETQ ? bytes("v") : NONE;
                Response r = c.call(opcode, extras, collectionKey(0x99, "k"), value, 0);
                assertEquals(0x0088, r.status(), "opcode " + opcode + " (quiet ones answer errors too)");
                JsonNode body = body(r);
                assertEquals("1f", body.path("manifest_uid").textValue(), "newer clients read manifest_uid");
                assertEquals("1f", body.path("error").path("context").textValue(), "older clients read the context");
            }
        }
    }

    @Test
    void anOversizedSetIsTooLargeInAnyCollectionAndDropsTheOldValueOfAKnownOne() throws Exception {
        try (BinaryClient c = collections("big")) {
            assertEquals(0, c.setManifest(manifest("2", "{\"name\":\"c8\",\"uid\":\"8\"}")).status());
            assertEquals(0, store(c, SET, collectionKey(8, "k"), "old", 0).status());
            byte[] tooBig = new byte[(1 << 20) + 1]; // the default max_item_size, 1 MiB
            assertEquals(0x0003, c.call(SET, storeExtras(0, 0), collectionKey(8, "k"), tooBig, 0).status());
            assertEquals(0x0001, get(c, collectionKey(8, "k")).status(), "the old value is gone, as memcached's");
            // The value's size is judged as the frame arrives, before its collection is looked up, as a Couchbase
            // server judges it when it allocates the item, before it stores it in a collection.
            assertEquals(0x0003, c.call(SET, storeExtras(0, 0), collectionKey(0x99, "k"), tooBig, 0).status(),
                    "too large before unknown collection");
            assertEquals(0x0088, store(c, SET, collectionKey(0x99, "k"), "v", 0).status(), "the connection goes on");
        }
    }

    @Test
    void aDroppedCollectionIsUnknownItsItemsArePurgedAndARecreatedOneStartsEmpty() throws Exception {
        // A gateway of its own, so that no other test's items change the item count meanwhile.
        try (TestGateway own = TestGateway.start(Map.of("collections.refresh_ms", "100"));
             BinaryClient c = new BinaryClient(own.port())) {
            assertArrayEquals(new int[] {COLLECTIONS}, c.hello(COLLECTIONS));
            String withC8 = "{\"name\":\"c8\",\"uid\":\"8\"}";
            long before = itemCount(c);
            assertEquals(0, c.setManifest(manifest("1", withC8)).status());
            for (int i = 0; i < 20; i++) {
                assertEquals(0, store(c, SET, collectionKey(8, "k" + i), "v", 0).status());
            }
            assertEquals(0, store(c, SET, collectionKey(0, "kept"), "v", 0).status());
            long withItems = itemCount(c);
            assertTrue(withItems >= before + 21, "items counted: " + withItems);
            assertEquals(0, c.setManifest(manifest("2", "")).status());
            assertEquals(0x0088, get(c, collectionKey(8, "k1")).status(), "dropped: unknown");
            long deadline = System.currentTimeMillis() + 5000;
            while (itemCount(c) > withItems - 20 && System.currentTimeMillis() < deadline) {
                Thread.sleep(20);
            }
            assertEquals(withItems - 20, itemCount(c), "the dropped collection's items are purged");
            assertEquals("v", get(c, collectionKey(0, "kept")).valueText(), "other collections keep theirs");
            assertEquals(0, c.setManifest(manifest("3", withC8)).status());
            assertEquals(0x0001, get(c, collectionKey(8, "k1")).status(), "a recreated collection starts empty");
        }
    }

    private static long itemCount(BinaryClient c) throws Exception {
        c.send(frame(STAT, NONE, NONE, NONE, 0, 1));
        long items = -1;
        while (true) {
            Response r = c.read();
            if (r.key().length == 0) {
                return items;
            }
            if (r.keyText().equals("curr_items")) {
                items = Long.parseLong(r.valueText());
            }
        }
    }

    @Test
    void maxTtlBoundsTheExpiryOfNewItems() throws Exception {
        try (BinaryClient c = collections("ttl")) {
            assertEquals(0, c.setManifest(manifest("1", "{\"name\":\"short\",\"uid\":\"8\",\"maxTTL\":1},"
                    + "{\"name\":\"older\",\"uid\":\"9\",\"max_ttl\":1},{\"name\":\"free\",\"uid\":\"a\"}")).status());
            for (long collection : new long[] {8, 9, 0xa}) {
                assertEquals(0, store(c, SET, collectionKey(collection, "no-expiry"), "v", 0).status());
                assertEquals(0, store(c, SET, collectionKey(collection, "long-expiry"), "v", 3600).status());
                assertEquals(0, c.call(INCREMENT, arithmeticExtras(1, 5, 0), collectionKey(collection, "counter"),
                        NONE, 0).status());
                assertEquals(0, store(c, SET, collectionKey(collection, "touched"), "v", 0).status());
                assertEquals(0, c.call(TOUCH, u32(0), collectionKey(collection, "touched"), NONE, 0).status());
            }
            Thread.sleep(2100);
            for (String key : new String[] {"no-expiry", "long-expiry", "counter", "touched"}) {
                assertEquals(0x0001, get(c, collectionKey(8, key)).status(), "maxTTL expired " + key);
                assertEquals(0x0001, get(c, collectionKey(9, key)).status(), "max_ttl expired " + key);
                assertEquals(0, get(c, collectionKey(0xa, key)).status(), "no maxTTL: " + key + " kept");
            }
        }
    }

    @Test
    void withoutCollectionsKeysAddressTheDefaultCollectionOfTheSelectedBucket() throws Exception {
        try (BinaryClient plain = new BinaryClient(gateway.port());
             BinaryClient aware = collections("plain")) {
            assertEquals(0, plain.set("shared", "from-default-bucket", 0, 0).status());
            select(plain, "plain");
            assertEquals(0x0001, plain.get("shared").status(), "another bucket, another default collection");
            assertEquals(0, plain.set("shared", "from-plain", 0, 0).status());
            Response seen = get(aware, collectionKey(0, "shared"));
            assertEquals("from-plain", seen.valueText(), "collection 0 is the default collection");
            // As a Couchbase server without the bucket: not found, which an SDK reports as BucketNotFoundException.
            double before = gateway.gateway().metrics().refusals("memcached", "unknown_bucket").count();
            assertEquals(0x0001, plain.call(SELECT_BUCKET, NONE, bytes("nope"), NONE, 0).status(),
                    "an unknown bucket");
            assertEquals(before + 1, gateway.gateway().metrics().refusals("memcached", "unknown_bucket").count());
            assertEquals("from-plain", plain.get("shared").valueText(), "the selection stays");
        }
    }

    @Test
    void withoutADefaultBucketDocumentsNeedASelectedBucket() throws Exception {
        try (TestGateway noDefault = TestGateway.start(Map.of("buckets", "travel"));
             BinaryClient c = new BinaryClient(noDefault.port())) {
            assertEquals(0x0008, c.set("k", "v", 0, 0).status());
            assertEquals(0x0008, c.call(GET_COLLECTIONS_MANIFEST, NONE, NONE, NONE, 0).status());
            select(c, "travel");
            assertEquals(0, c.set("k", "v", 0, 0).status());
            assertEquals("v", c.get("k").valueText());
        }
    }

    @Test
    void requestsPipelinedAfterAManifestSetSeeIt() throws Exception {
        try (BinaryClient c = collections("pipelined")) {
            byte[] key = collectionKey(8, "k");
            c.send(frame(SET_COLLECTIONS_MANIFEST, NONE, NONE, bytes(manifest("1", "{\"name\":\"p\",\"uid\":\"8\"}")),
                            0, 1),
                    frame(SET, storeExtras(0, 0), key, bytes("v"), 0, 2),
                    frame(GET, NONE, key, NONE, 0, 3));
            for (int opaque = 1; opaque <= 3; opaque++) {
                Response r = c.read();
                assertEquals(opaque, r.opaque());
                assertEquals(0, r.status(), "request " + opaque);
            }
        }
    }
}
