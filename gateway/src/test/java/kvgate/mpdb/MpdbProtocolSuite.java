package kvgate.mpdb;

import static kvgate.testing.MpdbClient.get;
import static kvgate.testing.MpdbClient.getBucket;
import static kvgate.testing.MpdbClient.getPersist;
import static kvgate.testing.MpdbClient.insert;
import static kvgate.testing.MpdbClient.integer;
import static kvgate.testing.MpdbClient.persist;
import static kvgate.testing.MpdbClient.request;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import kvgate.testing.BinaryClient;
import kvgate.testing.MpdbClient;
import kvgate.testing.MpdbClient.Raw;
import kvgate.testing.MpdbClient.Reply;
import kvgate.testing.MpdbClient.Typed;
import kvgate.testing.OkuyamaClient;
import kvgate.testing.TestGateway;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.msgpack.core.MessageFormat;

/**
 * MPDB's operations over a real UDP socket, with the replies the protocol document describes. One suite for every
 * backend: a subclass starts {@link #gateway} with {@link #settings()} on its backend. The gateway maps MPDB's
 * collection {@code default} onto the memcached default namespace (empty {@code mpdb.namespace_prefix}), so the
 * cross-protocol reads are part of the suite.
 */
abstract class MpdbProtocolSuite {
    static TestGateway gateway;
    private static final AtomicInteger UNIQUE = new AtomicInteger();
    MpdbClient client;

    /** The settings a subclass adds to its backend's. */
    static Map<String, String> settings() {
        return Map.of("mpdb.namespace_prefix", "");
    }

    @BeforeEach
    void connect() throws Exception {
        client = new MpdbClient(gateway.mpdbPort());
    }

    @AfterEach
    void disconnect() {
        client.close();
    }

    @AfterAll
    static void stopGateway() {
        if (gateway != null) {
            gateway.close();
            gateway = null;
        }
    }

    /** A collection (or key) name no other test uses. */
    static String fresh(String name) {
        return name + UNIQUE.incrementAndGet();
    }

    static Map<String, Object> pairs(Object... keysAndValues) {
        Map<String, Object> map = new LinkedHashMap<>();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            map.put((String) keysAndValues[i], keysAndValues[i + 1]);
        }
        return map;
    }

    static void assertOk(Reply reply, long echo) {
        assertEquals("RESPONSE", reply.oper());
        assertEquals(echo, reply.echo());
        assertEquals("", reply.error(), "error of echo " + echo);
    }

    static Object value(Reply reply, String key) {
        assertTrue(reply.result().containsKey(key), key + " missing from " + reply.result());
        Typed typed = reply.result().get(key);
        return typed.value();
    }

    @Test
    void insertThenGetAnswersEveryKeyPrefixedWithItsCollectionAndNilWhenMissing() throws Exception {
        String col = fresh("col");
        Reply stored = client.call(insert(1, pairs("plain", "in global", col + ".a", "in col",
                col + ".nest.b", "nested key")));
        assertOk(stored, 1);
        assertNull(stored.result(), "INSERT answers no pairs");
        assertEquals(1L, ((BigInteger) stored.nodeid()).longValue(), "the reply names the request's node");

        Reply read = client.call(get(2, "plain", col + ".a", col + ".nest.b", col + ".missing", "nest.b"));
        assertOk(read, 2);
        assertEquals(List.of("global.plain", col + ".a", col + ".nest.b", col + ".missing", "nest.b"),
                List.copyOf(read.result().keySet()), "every key, in order, prefixed with its collection");
        assertEquals("in global", value(read, "global.plain"));
        assertEquals("in col", value(read, col + ".a"));
        assertEquals("nested key", value(read, col + ".nest.b"), "split at the first dot only");
        assertNull(value(read, col + ".missing"));
        assertEquals(MessageFormat.NIL, read.result().get(col + ".missing").format());
        assertNull(value(read, "nest.b"), "collection nest, key b: not what was stored");
    }

    @Test
    void persistKeepsANodesPairsPrivateAndItsDottedKeysWhole() throws Exception {
        long node = 1000 + UNIQUE.incrementAndGet();
        assertOk(client.call(persist(node, 1, pairs("cfg.interval", 30L, "name", "kitchen"))), 1);

        Reply own = client.call(getPersist(node, 2, "cfg.interval", "name", "missing"));
        assertOk(own, 2);
        assertEquals(List.of("cfg.interval", "name", "missing"), List.copyOf(own.result().keySet()),
                "private keys come back as asked, with no collection prefix");
        assertEquals(BigInteger.valueOf(30), value(own, "cfg.interval"));
        assertEquals("kitchen", value(own, "name"));
        assertNull(value(own, "missing"));

        Reply other = client.call(getPersist(node + 1, 3, "cfg.interval", "name"));
        assertOk(other, 3);
        assertNull(value(other, "cfg.interval"), "another node's bucket holds none of them");
        assertNull(value(other, "name"));

        Reply collection = client.call(get(4, "cfg.interval"));
        assertNull(value(collection, "cfg.interval"), "the dotted private key is not collection cfg's key");
    }

    @Test
    void getBucketAnswersTheWholeCollectionOrBucketDoesNotExist() throws Exception {
        String col = fresh("bucket");
        Map<String, Object> data = new LinkedHashMap<>();
        for (int i = 0; i < 25; i++) {
            data.put(col + ".k" + i, i % 2 == 0 ? "v" + i : (Object) (long) i);
        }
        data.put(col + ".dotted.key", "kept whole");
        assertOk(client.call(insert(1, data)), 1);
        assertOk(client.call(insert(2, pairs(fresh("other") + ".k0", "elsewhere"))), 2);

        Reply bucket = client.call(getBucket(3, col));
        assertOk(bucket, 3);
        assertEquals(26, bucket.result().size(), bucket.result().toString());
        for (int i = 0; i < 25; i++) {
            Object expected = i % 2 == 0 ? "v" + i : BigInteger.valueOf(i);
            assertEquals(expected, value(bucket, col + ".k" + i));
        }
        assertEquals("kept whole", value(bucket, col + ".dotted.key"));

        Reply missing = client.call(getBucket(4, fresh("nothing")));
        assertEquals(4, missing.echo());
        assertEquals("Bucket does not exist", missing.error());
        assertNull(missing.result());
    }

    @Test
    void everyIntegerFormatAndStringsComeBackExactlyAsTheyWent() throws Exception {
        String col = fresh("types");
        BigInteger uint64Max = BigInteger.ONE.shiftLeft(64).subtract(BigInteger.ONE);
        Map<String, Object> data = new LinkedHashMap<>();
        data.put(col + ".str", "héllo wörld ✓");
        data.put(col + ".empty", "");
        data.put(col + ".fixint", new Raw(new byte[] {0x05}));
        data.put(col + ".negfixint", new Raw(new byte[] {(byte) 0xfb}));
        data.put(col + ".uint8", integer(0xcc, 5));
        data.put(col + ".uint16", integer(0xcd, 65535));
        data.put(col + ".uint32", integer(0xce, 4_000_000_000L));
        data.put(col + ".uint64", integer(0xcf, uint64Max));
        data.put(col + ".uint64small", integer(0xcf, 7));
        data.put(col + ".int8", integer(0xd0, -100));
        data.put(col + ".int16", integer(0xd1, 1234));
        data.put(col + ".int32", integer(0xd2, -2_000_000_000));
        data.put(col + ".int64", integer(0xd3, Long.MIN_VALUE));
        data.put(col + ".int64max", integer(0xd3, Long.MAX_VALUE));
        assertOk(client.call(insert(1, data)), 1);

        Reply read = client.call(get(2, data.keySet().toArray(String[]::new)));
        assertOk(read, 2);
        Map<String, Object[]> expected = new LinkedHashMap<>();
        expected.put("str", new Object[] {MessageFormat.FIXSTR, "héllo wörld ✓"});
        expected.put("empty", new Object[] {MessageFormat.FIXSTR, ""});
        expected.put("fixint", new Object[] {MessageFormat.POSFIXINT, BigInteger.valueOf(5)});
        expected.put("negfixint", new Object[] {MessageFormat.NEGFIXINT, BigInteger.valueOf(-5)});
        expected.put("uint8", new Object[] {MessageFormat.UINT8, BigInteger.valueOf(5)});
        expected.put("uint16", new Object[] {MessageFormat.UINT16, BigInteger.valueOf(65535)});
        expected.put("uint32", new Object[] {MessageFormat.UINT32, BigInteger.valueOf(4_000_000_000L)});
        expected.put("uint64", new Object[] {MessageFormat.UINT64, uint64Max});
        expected.put("uint64small", new Object[] {MessageFormat.UINT64, BigInteger.valueOf(7)});
        expected.put("int8", new Object[] {MessageFormat.INT8, BigInteger.valueOf(-100)});
        expected.put("int16", new Object[] {MessageFormat.INT16, BigInteger.valueOf(1234)});
        expected.put("int32", new Object[] {MessageFormat.INT32, BigInteger.valueOf(-2_000_000_000)});
        expected.put("int64", new Object[] {MessageFormat.INT64, BigInteger.valueOf(Long.MIN_VALUE)});
        expected.put("int64max", new Object[] {MessageFormat.INT64, BigInteger.valueOf(Long.MAX_VALUE)});
        for (Map.Entry<String, Object[]> entry : expected.entrySet()) {
            Typed typed = read.result().get(col + "." + entry.getKey());
            assertNotNull(typed, entry.getKey());
            assertEquals(entry.getValue()[0], typed.format(), entry.getKey());
            assertEquals(entry.getValue()[1], typed.value(), entry.getKey());
        }
    }

    @Test
    void floatsBinaryNestedNilBooleansAndStringsNotUtf8AreRefusedNamingTheKeyAndNothingIsStored() throws Exception {
        String col = fresh("refused");
        Map<String, Raw> refused = new LinkedHashMap<>();
        refused.put("float", new Raw(new byte[] {(byte) 0xca, 0x3f, (byte) 0x80, 0, 0}));
        refused.put("double", new Raw(new byte[] {(byte) 0xcb, 0x3f, (byte) 0xf0, 0, 0, 0, 0, 0, 0}));
        refused.put("binary", new Raw(new byte[] {(byte) 0xc4, 2, 1, 2}));
        refused.put("array", new Raw(new byte[] {(byte) 0x92, 1, 2}));
        refused.put("map", new Raw(new byte[] {(byte) 0x81, (byte) 0xa1, 'a', 1}));
        refused.put("nil", new Raw(new byte[] {(byte) 0xc0}));
        refused.put("boolean", new Raw(new byte[] {(byte) 0xc3}));
        refused.put("extension", new Raw(new byte[] {(byte) 0xd4, 1, 0}));
        refused.put("string-not-utf8", new Raw(new byte[] {(byte) 0xa2, (byte) 0xff, (byte) 0xfe}));
        long echo = 0;
        for (Map.Entry<String, Raw> entry : refused.entrySet()) {
            String key = col + "." + entry.getKey();
            Reply reply = client.call(insert(++echo, pairs(col + ".fine", "ok", key, entry.getValue())));
            assertEquals(echo, reply.echo());
            assertTrue(reply.error().contains("\"" + key + "\""), entry.getKey() + ": " + reply.error());
            Reply read = client.call(get(++echo, col + ".fine", key));
            assertOk(read, echo);
            assertNull(value(read, col + ".fine"), "nothing of a refused INSERT is stored");
            assertNull(value(read, key));
        }
    }

    @Test
    void aStringReadsAsTheSameBytesThroughMemcachedAndOkuyamaAndAnIntegerAsDecimalTextThatIncrWorksOn()
            throws Exception {
        String text = fresh("text");
        String number = fresh("number");
        assertOk(client.call(insert(1, pairs("default." + text, "ünïcode ✓", "default." + number,
                integer(0xcd, 41)))), 1);
        try (BinaryClient memcached = new BinaryClient(gateway.port());
             OkuyamaClient okuyama = new OkuyamaClient(gateway.okuyamaPort())) {
            BinaryClient.Response read = memcached.get(text);
            assertEquals(0, read.status());
            assertArrayEquals("ünïcode ✓".getBytes(StandardCharsets.UTF_8), read.value());
            assertEquals("2,true," + OkuyamaClient.b64("ünïcode ✓"), okuyama.call("2," + OkuyamaClient.b64(text)));
            assertEquals("41", memcached.get(number).valueText());

            BinaryClient.Response incremented = memcached.call(BinaryClient.INCREMENT,
                    BinaryClient.arithmeticExtras(1, 0, 0xffffffff), BinaryClient.bytes(number), BinaryClient.NONE, 0);
            assertEquals(0, incremented.status());
            assertEquals(42, incremented.number());
            Reply after = client.call(get(2, "default." + number));
            assertEquals(MessageFormat.UINT16, after.result().get("default." + number).format(),
                    "the format survives another protocol's arithmetic");
            assertEquals(BigInteger.valueOf(42), value(after, "default." + number));

            String written = fresh("fromMemcached");
            assertEquals(0, memcached.set(written, "set by memcached", 0, 0).status());
            String fromOkuyama = fresh("fromOkuyama");
            assertEquals("1,true,OK", okuyama.call("1," + OkuyamaClient.b64(fromOkuyama) + ",(B),0,"
                    + OkuyamaClient.b64("set by okuyama")));
            Reply foreign = client.call(get(3, "default." + written, "default." + fromOkuyama));
            assertEquals(MessageFormat.FIXSTR, foreign.result().get("default." + written).format());
            assertEquals("set by memcached", value(foreign, "default." + written));
            assertEquals("set by okuyama", value(foreign, "default." + fromOkuyama));
        }
    }

    @Test
    void aRequestItCannotCarryOutGetsAnErrorReplyWithItsEcho() throws Exception {
        Map<String, byte[]> cases = new LinkedHashMap<>();
        cases.put("missing \"oper\"", request("nodeid", 1L, "echo", 1L, "keys", List.of("a")));
        cases.put("\"oper\" must be a string", request("oper", 5L, "nodeid", 1L, "echo", 2L, "keys", List.of("a")));
        cases.put("unknown oper \"DELETE\"; expected one of PERSIST, GETPERSIST, INSERT, GET, GETBUCKET",
                request("oper", "DELETE", "nodeid", 1L, "echo", 3L, "keys", List.of("a")));
        cases.put("missing \"keys\"", request("oper", "GET", "nodeid", 1L, "echo", 4L));
        cases.put("\"keys\" must be an array of strings",
                request("oper", "GET", "nodeid", 1L, "echo", 5L, "keys", List.of("a", 7L)));
        cases.put("\"keys\" must be an array of strings ",
                request("oper", "GET", "nodeid", 1L, "echo", 6L, "keys", "a"));
        cases.put("missing \"data\"", request("oper", "INSERT", "nodeid", 1L, "echo", 7L));
        cases.put("\"data\" must be a map", request("oper", "INSERT", "nodeid", 1L, "echo", 8L, "data", List.of()));
        cases.put("a key of \"data\" is not a UTF-8 string", request("oper", "INSERT", "nodeid", 1L, "echo", 9L,
                "data", Map.of(5L, "x")));
        cases.put("missing \"nodeid\"", request("oper", "PERSIST", "echo", 10L, "data", Map.of("a", "b")));
        cases.put("\"nodeid\" must be an unsigned integer",
                request("oper", "GETPERSIST", "nodeid", "me", "echo", 11L, "keys", List.of("a")));
        cases.put("missing \"collection\"", request("oper", "GETBUCKET", "nodeid", 1L, "echo", 12L));
        cases.put("\"collection\" must be a string",
                request("oper", "GETBUCKET", "nodeid", 1L, "echo", 13L, "collection", 4L));
        cases.put("key \"col.\" is empty", insert(14, pairs("col.", "x")));
        cases.put("key \".abc\" names an empty collection name", insert(15, pairs(".abc", "x")));
        long echo = 0;
        for (Map.Entry<String, byte[]> entry : cases.entrySet()) {
            echo++;
            Reply reply = client.call(entry.getValue());
            assertEquals(echo, reply.echo(), entry.getKey());
            assertEquals("RESPONSE", reply.oper());
            assertNull(reply.result());
            assertEquals(entry.getKey().strip(), reply.error());
        }
        // The order goes on after errors: the next tag runs as usual.
        assertOk(client.call(get(echo + 1, "anything")), echo + 1);
    }
}
