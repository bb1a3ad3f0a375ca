package kvgate.memcached.couchbase;

import static kvgate.testing.BinaryClient.*;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import kvgate.testing.BinaryClient;
import kvgate.testing.BinaryClient.Response;
import kvgate.testing.TestGateway;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The sub-document commands on the wire, as a Couchbase server answers them: the single-path commands, the
 * multi-path lookups and mutations with each path's outcome, the path syntax, the document flags, expiry and flags of
 * the changed document, every malformed request refused whole, and concurrent changes of one document that all land.
 */
class SubdocProtocolTest {
    private static final int SUCCESS = 0x00, KEY_ENOENT = 0x01, KEY_EEXISTS = 0x02, E2BIG = 0x03, EINVAL = 0x04,
            NOT_SUPPORTED = 0x83, PATH_ENOENT = 0xc0, PATH_MISMATCH = 0xc1, PATH_EINVAL = 0xc2, PATH_E2BIG = 0xc3,
            VALUE_CANTINSERT = 0xc5, DOC_NOTJSON = 0xc6, NUM_ERANGE = 0xc7, DELTA_EINVAL = 0xc8, PATH_EEXISTS = 0xc9,
            VALUE_ETOODEEP = 0xca, INVALID_COMBO = 0xcb, MULTI_PATH_FAILURE = 0xcc;
    private static final int MKDIR_P = 0x01, XATTR = 0x04;
    private static final int MKDOC = 0x01, ADD_DOC = 0x02;
    private static final int MAX_ITEM = 512 * 1024;
    private static TestGateway gateway;

    @BeforeAll
    static void start() throws Exception {
        gateway = TestGateway.start(Map.of("max_item_size", Integer.toString(MAX_ITEM)));
    }

    @AfterAll
    static void stop() {
        gateway.close();
    }

    /** A single-path command with no document flags. */
    private static Response single(BinaryClient c, int opcode, String key, String path, String value, int flags)
            throws Exception {
        return c.call(opcode, subdocExtras(path, flags), bytes(key), pathAndValue(path, value), 0);
    }

    private static Response lookup(BinaryClient c, String key, byte[]... specs) throws Exception {
        return c.call(SUBDOC_MULTI_LOOKUP, NONE, bytes(key), concat(specs), 0);
    }

    private static Response mutate(BinaryClient c, byte[] extras, String key, long cas, byte[]... specs)
            throws Exception {
        return c.call(SUBDOC_MULTI_MUTATION, extras, bytes(key), concat(specs), cas);
    }

    /** A multi-lookup reply's results: status and value of each path. */
    private static List<String> results(Response reply) {
        ByteBuffer body = ByteBuffer.wrap(reply.value());
        List<String> results = new ArrayList<>();
        while (body.hasRemaining()) {
            int status = body.getShort() & 0xffff;
            byte[] value = new byte[body.getInt()];
            body.get(value);
            results.add(Integer.toHexString(status) + ":" + new String(value, StandardCharsets.UTF_8));
        }
        return results;
    }

    /** Arrays inside arrays, {@code levels} deep. */
    private static String nested(int levels) {
        return "[".repeat(levels) + "]".repeat(levels);
    }

    private static String document(BinaryClient c, String key) throws Exception {
        Response read = c.get(key);
        assertEquals(SUCCESS, read.status());
        return read.valueText();
    }

    @Test
    void singlePathCommandsLookUpAndChangeOnePath() throws Exception {
        try (BinaryClient c = new BinaryClient(gateway.port())) {
            assertEquals(SUCCESS, c.set("one", "{\"a\":{\"b\":[1,2,3]},\"s\":\"x\"}", 5, 0).status());
            Response got = single(c, SUBDOC_GET, "one", "a.b[1]", "", 0);
            assertEquals(SUCCESS, got.status());
            assertEquals("2", got.valueText());
            assertEquals(c.get("one").cas(), got.cas());
            assertEquals("[1,2,3]", single(c, SUBDOC_GET, "one", "a.b", "", 0).valueText());
            assertEquals("3", single(c, SUBDOC_GET, "one", "a.b[-1]", "", 0).valueText());
            assertEquals("3", single(c, SUBDOC_GET_COUNT, "one", "a.b", "", 0).valueText());
            assertEquals("2", single(c, SUBDOC_GET_COUNT, "one", "", "", 0).valueText());
            assertEquals(SUCCESS, single(c, SUBDOC_EXISTS, "one", "s", "", 0).status());
            assertEquals(0, single(c, SUBDOC_EXISTS, "one", "s", "", 0).value().length);
            assertEquals(PATH_ENOENT, single(c, SUBDOC_GET, "one", "a.c", "", 0).status());
            assertEquals(PATH_ENOENT, single(c, SUBDOC_GET, "one", "a.b[3]", "", 0).status());
            assertEquals(PATH_MISMATCH, single(c, SUBDOC_GET, "one", "s.t", "", 0).status());
            assertEquals(PATH_MISMATCH, single(c, SUBDOC_GET, "one", "a[0]", "", 0).status());
            assertEquals(PATH_MISMATCH, single(c, SUBDOC_GET_COUNT, "one", "s", "", 0).status());
            assertEquals(KEY_ENOENT, single(c, SUBDOC_GET, "none", "a", "", 0).status());

            long before = c.get("one").cas();
            Response upserted = single(c, SUBDOC_DICT_UPSERT, "one", "a.c", "{\"d\":true}", 0);
            assertEquals(SUCCESS, upserted.status());
            assertNotEquals(before, upserted.cas());
            assertEquals(0, upserted.value().length);
            assertEquals(PATH_EEXISTS, single(c, SUBDOC_DICT_ADD, "one", "a.c", "1", 0).status());
            assertEquals(PATH_ENOENT, single(c, SUBDOC_DICT_ADD, "one", "x.y.z", "1", 0).status());
            assertEquals(SUCCESS, single(c, SUBDOC_DICT_ADD, "one", "x.y.z", "1", MKDIR_P).status());
            assertEquals(PATH_EINVAL, single(c, SUBDOC_DICT_UPSERT, "one", "a.b[0]", "1", 0).status());
            assertEquals(PATH_MISMATCH, single(c, SUBDOC_DICT_UPSERT, "one", "s.t", "1", 0).status());
            assertEquals(SUCCESS, single(c, SUBDOC_REPLACE, "one", "a.b[0]", "10", 0).status());
            assertEquals(PATH_ENOENT, single(c, SUBDOC_REPLACE, "one", "nothing", "1", 0).status());
            assertEquals(SUCCESS, single(c, SUBDOC_ARRAY_PUSH_LAST, "one", "a.b", "4,5", 0).status());
            assertEquals(SUCCESS, single(c, SUBDOC_ARRAY_PUSH_FIRST, "one", "a.b", "0", 0).status());
            assertEquals(SUCCESS, single(c, SUBDOC_ARRAY_INSERT, "one", "a.b[2]", "\"i\"", 0).status());
            assertEquals(SUCCESS, single(c, SUBDOC_ARRAY_INSERT, "one", "a.b[7]", "6", 0).status());
            assertEquals(PATH_ENOENT, single(c, SUBDOC_ARRAY_INSERT, "one", "a.b[9]", "6", 0).status());
            assertEquals(PATH_EINVAL, single(c, SUBDOC_ARRAY_INSERT, "one", "a.b[-1]", "6", 0).status());
            assertEquals(PATH_EINVAL, single(c, SUBDOC_ARRAY_INSERT, "one", "a.b", "6", 0).status());
            assertEquals(PATH_EEXISTS, single(c, SUBDOC_ARRAY_ADD_UNIQUE, "one", "a.b", "4", 0).status());
            assertEquals(SUCCESS, single(c, SUBDOC_ARRAY_ADD_UNIQUE, "one", "a.b", "\"4\"", 0).status());
            assertEquals(VALUE_CANTINSERT, single(c, SUBDOC_ARRAY_ADD_UNIQUE, "one", "a.b", "[1]", 0).status());
            assertEquals(PATH_MISMATCH, single(c, SUBDOC_ARRAY_PUSH_LAST, "one", "s", "1", 0).status());
            assertEquals(PATH_ENOENT, single(c, SUBDOC_ARRAY_PUSH_LAST, "one", "list", "1", 0).status());
            assertEquals(SUCCESS, single(c, SUBDOC_ARRAY_PUSH_LAST, "one", "list", "1", MKDIR_P).status());
            assertEquals(SUCCESS, single(c, SUBDOC_DELETE, "one", "a.b[1]", "", 0).status());
            assertEquals(SUCCESS, single(c, SUBDOC_DELETE, "one", "s", "", 0).status());
            assertEquals(PATH_ENOENT, single(c, SUBDOC_DELETE, "one", "s", "", 0).status());
            assertEquals("{\"a\":{\"b\":[0,\"i\",2,3,4,5,6,\"4\"],\"c\":{\"d\":true}},\"x\":{\"y\":{\"z\":1}},"
                    + "\"list\":[1]}", document(c, "one"));
            assertEquals(5, c.get("one").flags(), "a change keeps the document's flags");

            Response counted = single(c, SUBDOC_COUNTER, "one", "n", "5", 0);
            assertEquals(SUCCESS, counted.status());
            assertEquals("5", counted.valueText());
            assertEquals("-2", single(c, SUBDOC_COUNTER, "one", "n", "-7", 0).valueText());
            assertEquals(DELTA_EINVAL, single(c, SUBDOC_COUNTER, "one", "n", "0", 0).status());
            assertEquals(DELTA_EINVAL, single(c, SUBDOC_COUNTER, "one", "n", "1.5", 0).status());
            assertEquals(DELTA_EINVAL, single(c, SUBDOC_COUNTER, "one", "n", "99999999999999999999", 0).status());
            assertEquals(PATH_MISMATCH, single(c, SUBDOC_COUNTER, "one", "a", "1", 0).status());
            assertEquals(SUCCESS, single(c, SUBDOC_DICT_UPSERT, "one", "big", "9223372036854775807", 0).status());
            assertEquals(VALUE_CANTINSERT, single(c, SUBDOC_COUNTER, "one", "big", "1", 0).status());
            assertEquals(SUCCESS, single(c, SUBDOC_DICT_UPSERT, "one", "huge", "99999999999999999999", 0).status());
            assertEquals(NUM_ERANGE, single(c, SUBDOC_COUNTER, "one", "huge", "1", 0).status());
            assertEquals(KEY_ENOENT, single(c, SUBDOC_COUNTER, "none", "n", "1", 0).status());
        }
    }

    @Test
    void pathsFollowCouchbaseSyntax() throws Exception {
        try (BinaryClient c = new BinaryClient(gateway.port())) {
            assertEquals(SUCCESS, c.set("syntax", "{\"dot.ted\":{\"x\":1},\"back`tick\":2,\"q\\\"uote\":3,"
                    + "\"arr\":[[0,[1,2]]],\"n\":1.50}", 0, 0).status());
            assertEquals("1", single(c, SUBDOC_GET, "syntax", "`dot.ted`.x", "", 0).valueText());
            assertEquals("2", single(c, SUBDOC_GET, "syntax", "`back``tick`", "", 0).valueText());
            assertEquals("3", single(c, SUBDOC_GET, "syntax", "q\\\"uote", "", 0).valueText());
            assertEquals("2", single(c, SUBDOC_GET, "syntax", "arr[0][1][1]", "", 0).valueText());
            assertEquals("1.50", single(c, SUBDOC_GET, "syntax", "n", "", 0).valueText(), "digits kept");
            for (String bad : new String[] {"a..b", ".a", "a.", "a[", "a[x]", "a[-2]", "a]", "a[0]b", "`open",
                    "a.[0]"}) {
                assertEquals(PATH_EINVAL, single(c, SUBDOC_GET, "syntax", bad, "", 0).status(), bad);
            }
            // The root is one of the 32 levels: 31 steps are the most a path may take.
            String deepest = "a" + ".a".repeat(SubdocPath.MAX_COMPONENTS - 2);
            assertEquals(PATH_ENOENT, single(c, SUBDOC_GET, "syntax", deepest, "", 0).status());
            assertEquals(PATH_E2BIG, single(c, SUBDOC_GET, "syntax", deepest + ".a", "", 0).status());
            // A quote must be escaped: unescaped, it would end the name and what follows would name another field.
            assertEquals(PATH_EINVAL, single(c, SUBDOC_DICT_UPSERT, "syntax", "n\"zz\\n", "99", 0).status());
            assertEquals(PATH_EINVAL, single(c, SUBDOC_GET, "syntax", "q\"uote", "", 0).status());
            String tooLong = "a".repeat(SubdocPath.MAX_LENGTH + 1);
            assertEquals(EINVAL, single(c, SUBDOC_GET, "syntax", tooLong, "", 0).status());
            // A root array, reached by index from the start.
            assertEquals(SUCCESS, c.set("list", "[1,[2]]", 0, 0).status());
            assertEquals("2", single(c, SUBDOC_GET, "list", "[1][0]", "", 0).valueText());
            assertEquals(SUCCESS, single(c, SUBDOC_ARRAY_PUSH_LAST, "list", "", "3", 0).status());
            assertEquals("[1,[2],3]", document(c, "list"));
            // A value that is not one JSON value, or would make the document too deep.
            assertEquals(VALUE_CANTINSERT, single(c, SUBDOC_DICT_UPSERT, "syntax", "v", "{", 0).status());
            assertEquals(VALUE_CANTINSERT, single(c, SUBDOC_DICT_UPSERT, "syntax", "v", "1 2", 0).status());
            assertEquals(VALUE_CANTINSERT, single(c, SUBDOC_ARRAY_PUSH_LAST, "list", "", ",", 0).status());
            // The root, the member and the value's levels: 32 at the most.
            int levels = SubdocDocument.MAX_DEPTH - 2;
            assertEquals(SUCCESS, single(c, SUBDOC_DICT_UPSERT, "syntax", "v", nested(levels), 0).status());
            assertEquals(VALUE_ETOODEEP, single(c, SUBDOC_DICT_UPSERT, "syntax", "v", nested(levels + 1), 0)
                    .status());
            assertEquals(VALUE_ETOODEEP, single(c, SUBDOC_DICT_UPSERT, "syntax", "v", nested(1000), 0).status());
            // A document nesting deeper than that is not read.
            assertEquals(SUCCESS, c.set("deep", nested(SubdocDocument.MAX_DEPTH + 1), 0, 0).status());
            assertEquals(0xc4, single(c, SUBDOC_GET, "deep", "[0]", "", 0).status());
            assertEquals(SUCCESS, c.set("deep", nested(SubdocDocument.MAX_DEPTH), 0, 0).status());
            assertEquals(SUCCESS, single(c, SUBDOC_GET, "deep", "[0]", "", 0).status());
        }
    }

    @Test
    void multiPathLookupsAnswerEachPath() throws Exception {
        try (BinaryClient c = new BinaryClient(gateway.port())) {
            String stored = "{\"from\":\"ann\",\"to\":[\"bo\",\"cy\"]}";
            assertEquals(SUCCESS, c.set("mail", stored, 0, 0).status());
            Response all = lookup(c, "mail", lookupSpec(SUBDOC_GET, 0, "from"),
                    lookupSpec(SUBDOC_EXISTS, 0, "to[1]"), lookupSpec(SUBDOC_GET_COUNT, 0, "to"),
                    lookupSpec(GET, 0, ""));
            assertEquals(SUCCESS, all.status());
            assertEquals(c.get("mail").cas(), all.cas());
            assertEquals(List.of("0:\"ann\"", "0:", "0:2", "0:" + stored), results(all));
            Response some = lookup(c, "mail", lookupSpec(SUBDOC_GET, 0, "cc"), lookupSpec(SUBDOC_GET, 0, "to[0]"),
                    lookupSpec(SUBDOC_GET, 0, "from.x"), lookupSpec(SUBDOC_GET, 0, "a..b"));
            assertEquals(MULTI_PATH_FAILURE, some.status());
            assertEquals(List.of("c0:", "0:\"bo\"", "c1:", "c2:"), results(some));
            assertEquals(KEY_ENOENT, lookup(c, "nobody", lookupSpec(SUBDOC_GET, 0, "from")).status());

            // A document that is not JSON: its paths fail, its whole is still read.
            assertEquals(SUCCESS, c.set("binary", "not json", 0, 0).status());
            Response binary = lookup(c, "binary", lookupSpec(SUBDOC_GET, 0, "a"), lookupSpec(GET, 0, ""));
            assertEquals(MULTI_PATH_FAILURE, binary.status());
            assertEquals(List.of("c6:", "0:not json"), results(binary));
            assertEquals(DOC_NOTJSON, single(c, SUBDOC_DICT_UPSERT, "binary", "a", "1", 0).status());
            assertEquals("not json", document(c, "binary"));
        }
    }

    @Test
    void virtualAttributesTellTheItemsMetadataAndNothingElseIsStored() throws Exception {
        try (BinaryClient c = new BinaryClient(gateway.port())) {
            long expiresAt = System.currentTimeMillis() / 1000 + 3600;
            assertEquals(SUCCESS, c.set("meta", "{\"a\":1}", 0x02000006, (int) expiresAt).status());
            long cas = c.get("meta").cas();
            Response read = lookup(c, "meta", lookupSpec(SUBDOC_GET, XATTR, "$document.exptime"),
                    lookupSpec(SUBDOC_GET, XATTR, "$document.flags"), lookupSpec(SUBDOC_GET, XATTR, "$document.CAS"),
                    lookupSpec(SUBDOC_GET, XATTR, "$document.value_bytes"),
                    lookupSpec(SUBDOC_GET, XATTR, "$document.datatype"), lookupSpec(SUBDOC_GET, XATTR, "$XTOC"),
                    lookupSpec(SUBDOC_GET, XATTR, "_sync"), lookupSpec(SUBDOC_EXISTS, XATTR, "$nothing"),
                    lookupSpec(GET, 0, ""));
            assertEquals(MULTI_PATH_FAILURE, read.status());
            assertEquals(List.of("0:" + expiresAt, "0:" + 0x02000006, "0:\"" + String.format("0x%016x", cas) + "\"",
                    "0:7", "0:[\"json\"]", "0:[]", "c0:", "d1:", "0:{\"a\":1}"), results(read));
            assertEquals(SUCCESS, c.set("plain", "text", 0, 0).status());
            assertEquals(List.of("0:0", "0:[\"raw\"]"), results(lookup(c, "plain",
                    lookupSpec(SUBDOC_GET, XATTR, "$document.exptime"),
                    lookupSpec(SUBDOC_GET, XATTR, "$document.datatype"))));
            // Attributes come before the document's paths; none is stored, so none is written.
            assertEquals(0xd4, lookup(c, "meta", lookupSpec(SUBDOC_GET, 0, "a"),
                    lookupSpec(SUBDOC_GET, XATTR, "$document.CAS")).status());
            assertEquals(EINVAL, lookup(c, "meta", lookupSpec(SUBDOC_GET, XATTR, "")).status());
            assertEquals(EINVAL, lookup(c, "meta", lookupSpec(GET, XATTR, "")).status());
            assertEquals(NOT_SUPPORTED, mutate(c, NONE, "meta", 0, mutationSpec(SUBDOC_DICT_UPSERT, XATTR, "_x", "1"))
                    .status());
            assertEquals(NOT_SUPPORTED, single(c, SUBDOC_DICT_UPSERT, "meta", "_x.y", "1", XATTR).status());
            assertEquals(0xd2, single(c, SUBDOC_DICT_UPSERT, "meta", "$document.flags", "1", XATTR).status());
            assertEquals(0xce, single(c, SUBDOC_DICT_UPSERT, "meta", "a", "1", 0x10).status(), "macros want xattr");
            assertEquals(String.valueOf(expiresAt), single(c, SUBDOC_GET, "meta", "$document.exptime", "", XATTR)
                    .valueText());
        }
    }

    @Test
    void multiPathMutationsApplyAllOrNothing() throws Exception {
        try (BinaryClient c = new BinaryClient(gateway.port())) {
            assertEquals(SUCCESS, c.set("user", "{\"logins\":1,\"tags\":[]}", 3, 0).status());
            Response done = mutate(c, NONE, "user", 0, mutationSpec(SUBDOC_ARRAY_ADD_UNIQUE, 0, "tags", "\"a\""),
                    mutationSpec(SUBDOC_COUNTER, 0, "logins", "1"),
                    mutationSpec(SUBDOC_DICT_UPSERT, 0, "state", "\"in\""),
                    mutationSpec(SUBDOC_COUNTER, 0, "tags[0]", "1"));
            assertEquals(MULTI_PATH_FAILURE, done.status());
            assertArrayEquals(new byte[] {3, 0, (byte) PATH_MISMATCH}, done.value(), "the first failed path");
            assertEquals("{\"logins\":1,\"tags\":[]}", document(c, "user"), "nothing of it written");

            done = mutate(c, NONE, "user", 0, mutationSpec(SUBDOC_ARRAY_ADD_UNIQUE, 0, "tags", "\"a\""),
                    mutationSpec(SUBDOC_COUNTER, 0, "logins", "1"),
                    mutationSpec(SUBDOC_DICT_UPSERT, 0, "state", "\"in\""),
                    mutationSpec(SUBDOC_COUNTER, 0, "visits", "10"));
            assertEquals(SUCCESS, done.status());
            ByteBuffer values = ByteBuffer.wrap(done.value());
            assertEquals(1, values.get());
            assertEquals(0, values.getShort());
            assertEquals(1, values.getInt());
            assertEquals('2', values.get());
            assertEquals(3, values.get());
            assertEquals(0, values.getShort());
            assertEquals(2, values.getInt());
            assertEquals(10, Integer.parseInt(new String(new byte[] {values.get(), values.get()},
                    StandardCharsets.US_ASCII)));
            assertEquals(0, values.remaining());
            assertEquals(c.get("user").cas(), done.cas());
            assertEquals("{\"logins\":2,\"tags\":[\"a\"],\"state\":\"in\",\"visits\":10}", document(c, "user"));
            assertEquals(3, c.get("user").flags());

            // The client's CAS: a stale one is refused, the current one lands.
            long cas = c.get("user").cas();
            assertEquals(KEY_EEXISTS, mutate(c, NONE, "user", cas + 1,
                    mutationSpec(SUBDOC_DICT_UPSERT, 0, "x", "1")).status());
            assertEquals(SUCCESS, mutate(c, NONE, "user", cas, mutationSpec(SUBDOC_DICT_UPSERT, 0, "x", "1"))
                    .status());
            assertEquals(KEY_ENOENT, mutate(c, NONE, "nobody", 0, mutationSpec(SUBDOC_DICT_UPSERT, 0, "x", "1"))
                    .status());

            // Whole-document commands: a set of the whole body, and a delete that must stand alone.
            assertEquals(SUCCESS, mutate(c, NONE, "user", 0, mutationSpec(SET, 0, "", "{\"fresh\":1}"),
                    mutationSpec(SUBDOC_DICT_UPSERT, 0, "more", "2")).status());
            assertEquals("{\"fresh\":1,\"more\":2}", document(c, "user"));
            assertEquals(INVALID_COMBO, mutate(c, NONE, "user", 0, mutationSpec(SUBDOC_DICT_UPSERT, 0, "a", "1"),
                    mutationSpec(DELETE, 0, "", "")).status());
            assertEquals(SUCCESS, mutate(c, NONE, "user", 0, mutationSpec(DELETE, 0, "", "")).status());
            assertEquals(KEY_ENOENT, c.get("user").status());
        }
    }

    @Test
    void documentFlagsCreateDocumentsAndTheChangeSetsExpiryAndFlags() throws Exception {
        try (BinaryClient c = new BinaryClient(gateway.port())) {
            assertEquals(SUCCESS, mutate(c, new byte[] {MKDOC}, "made", 0,
                    mutationSpec(SUBDOC_DICT_UPSERT, 0, "a.b", "1")).status());
            assertEquals("{\"a\":{\"b\":1}}", document(c, "made"));
            assertEquals(SUCCESS, mutate(c, new byte[] {MKDOC}, "madelist", 0,
                    mutationSpec(SUBDOC_ARRAY_PUSH_LAST, 0, "", "1,2")).status());
            assertEquals("[1,2]", document(c, "madelist"));
            assertEquals(SUCCESS, mutate(c, new byte[] {ADD_DOC}, "added", 0,
                    mutationSpec(SUBDOC_COUNTER, 0, "n", "4")).status());
            assertEquals("{\"n\":4}", document(c, "added"));
            assertEquals(KEY_EEXISTS, mutate(c, new byte[] {ADD_DOC}, "added", 0,
                    mutationSpec(SUBDOC_COUNTER, 0, "n", "4")).status());
            assertEquals(KEY_ENOENT, mutate(c, new byte[] {MKDOC}, "nodelete", 0,
                    mutationSpec(DELETE, 0, "", "")).status());
            // Single-path: the document flags are the extras' last byte.
            byte[] extras = ByteBuffer.allocate(4).putShort((short) 1).put((byte) 0).put((byte) MKDOC).array();
            assertEquals(SUCCESS, c.call(SUBDOC_DICT_ADD, extras, bytes("single"), pathAndValue("k", "true"), 0)
                    .status());
            assertEquals("{\"k\":true}", document(c, "single"));

            // Expiry and flags: an expiry given applies; none clears the old one; flags given replace the old.
            long expiresAt = System.currentTimeMillis() / 1000 + 3600;
            byte[] expiryAndFlags = ByteBuffer.allocate(8).putInt((int) expiresAt).putInt(42).array();
            assertEquals(SUCCESS, mutate(c, expiryAndFlags, "made", 0,
                    mutationSpec(SUBDOC_DICT_UPSERT, 0, "c", "2")).status());
            ByteBuffer meta = ByteBuffer.wrap(c.call(GET_META, NONE, bytes("made"), NONE, 0).extras());
            assertEquals(42, meta.getInt(4));
            assertEquals(expiresAt, meta.getInt(8));
            assertEquals(SUCCESS, mutate(c, NONE, "made", 0, mutationSpec(SUBDOC_DICT_UPSERT, 0, "c", "3")).status());
            meta = ByteBuffer.wrap(c.call(GET_META, NONE, bytes("made"), NONE, 0).extras());
            assertEquals(42, meta.getInt(4), "flags kept");
            assertEquals(0, meta.getInt(8), "no expiry given: none, as a Couchbase server does");

            // A change that makes the document larger than an item may be is refused, the document unchanged.
            String big = "\"" + "x".repeat(MAX_ITEM) + "\"";
            assertEquals(E2BIG, single(c, SUBDOC_DICT_UPSERT, "made", "big", big, 0).status());
            assertEquals("{\"a\":{\"b\":1},\"c\":3}", document(c, "made"));
        }
    }

    @Test
    void malformedRequestsAreRefusedWhole() throws Exception {
        try (BinaryClient c = new BinaryClient(gateway.port())) {
            assertEquals(SUCCESS, c.set("m", "{\"a\":1}", 0, 0).status());
            byte[] get = lookupSpec(SUBDOC_GET, 0, "a");
            byte[] upsert = mutationSpec(SUBDOC_DICT_UPSERT, 0, "b", "1");
            // Extras: lookups take none or the document flags; mutations also the expiry and the flags.
            for (int length : new int[] {2, 4, 5}) {
                assertEquals(EINVAL, c.call(SUBDOC_MULTI_LOOKUP, new byte[length], bytes("m"), get, 0).status());
            }
            for (int length : new int[] {2, 3, 6, 7, 10}) {
                assertEquals(EINVAL, c.call(SUBDOC_MULTI_MUTATION, new byte[length], bytes("m"), upsert, 0)
                        .status(), "extras of " + length);
            }
            assertEquals(EINVAL, c.call(SUBDOC_GET, new byte[2], bytes("m"), bytes("a"), 0).status());
            assertEquals(EINVAL, c.call(SUBDOC_GET, new byte[7], bytes("m"), bytes("a"), 0).status());
            assertEquals(EINVAL, c.call(SUBDOC_DICT_UPSERT, new byte[5], bytes("m"), bytes("a1"), 0).status());
            // A path longer than the value, a key missing, a datatype other than raw.
            assertEquals(EINVAL, c.call(SUBDOC_GET, subdocExtras("abc", 0), bytes("m"), bytes("ab"), 0).status());
            assertEquals(EINVAL, c.call(SUBDOC_MULTI_LOOKUP, NONE, NONE, get, 0).status());
            c.hello(BinaryClient.JSON);
            c.send(frame(SUBDOC_MULTI_LOOKUP, 0x01, 0, NONE, bytes("m"), get, 0, 77));
            assertEquals(EINVAL, c.read().status());
            // Truncated specs, no spec, too many specs, a command of the other kind, an unknown command.
            assertEquals(EINVAL, lookup(c, "m", new byte[] {(byte) SUBDOC_GET, 0, 0}).status());
            assertEquals(EINVAL, lookup(c, "m", new byte[] {(byte) SUBDOC_GET, 0, 0, 5, 'a'}).status());
            assertEquals(EINVAL, mutate(c, NONE, "m", 0, new byte[] {(byte) SUBDOC_DICT_UPSERT, 0, 0, 1, 0, 0, 0,
                    9, 'b', '1'}).status());
            assertEquals(INVALID_COMBO, lookup(c, "m").status());
            byte[][] seventeen = new byte[SubdocRequest.MAX_SPECS + 1][];
            java.util.Arrays.fill(seventeen, get);
            assertEquals(INVALID_COMBO, lookup(c, "m", seventeen).status());
            byte[][] sixteen = new byte[SubdocRequest.MAX_SPECS][];
            java.util.Arrays.fill(sixteen, get);
            assertEquals(SUCCESS, lookup(c, "m", sixteen).status());
            assertEquals(INVALID_COMBO, lookup(c, "m", lookupSpec(SUBDOC_DICT_UPSERT, 0, "a")).status());
            assertEquals(INVALID_COMBO, mutate(c, NONE, "m", 0, mutationSpec(SUBDOC_GET, 0, "a", "")).status());
            assertEquals(INVALID_COMBO, lookup(c, "m", lookupSpec(0x7f, 0, "a")).status());
            // Flags: unknown path flags, add with mkdoc, add with a CAS, unknown document flags.
            assertEquals(EINVAL, lookup(c, "m", lookupSpec(SUBDOC_GET, MKDIR_P, "a")).status());
            assertEquals(EINVAL, mutate(c, NONE, "m", 0, mutationSpec(SUBDOC_DELETE, MKDIR_P, "a", "")).status());
            assertEquals(EINVAL, mutate(c, new byte[] {MKDOC | ADD_DOC}, "m", 0, upsert).status());
            assertEquals(EINVAL, mutate(c, new byte[] {ADD_DOC}, "m", 5, upsert).status());
            assertEquals(EINVAL, c.call(SUBDOC_MULTI_LOOKUP, new byte[] {MKDOC}, bytes("m"), get, 0).status());
            assertEquals(EINVAL, mutate(c, new byte[] {(byte) 0x80}, "m", 0, upsert).status());
            // Paths and values where the command takes none, or none where it needs one.
            assertEquals(EINVAL, lookup(c, "m", lookupSpec(SUBDOC_GET, 0, "")).status());
            assertEquals(EINVAL, lookup(c, "m", lookupSpec(GET, 0, "a")).status());
            assertEquals(EINVAL, mutate(c, NONE, "m", 0, mutationSpec(SUBDOC_DICT_UPSERT, 0, "b", "")).status());
            assertEquals(EINVAL, mutate(c, NONE, "m", 0, mutationSpec(SUBDOC_DELETE, 0, "a", "1")).status());
            assertEquals(EINVAL, mutate(c, NONE, "m", 0, mutationSpec(SUBDOC_DICT_UPSERT, 0, "", "1")).status());
            assertEquals(EINVAL, single(c, SUBDOC_GET, "m", "a", "extra", 0).status());
            // None of it changed the document, and the connection still serves.
            assertEquals("{\"a\":1}", document(c, "m"));
        }
    }

    @Test
    void largeDocumentsAreWorkedOnAwayFromTheNetworkThreadAndLargeInsertsKeepTheirOrder() throws Exception {
        int count = 20_000; // well above the size worked on inline
        StringBuilder initial = new StringBuilder("{\"list\":[");
        StringBuilder front = new StringBuilder();
        for (int i = 0; i < count; i++) {
            initial.append(i == 0 ? "" : ",").append(i);
            front.append(i == 0 ? "" : ",").append(-i - 1);
        }
        initial.append("]}");
        try (BinaryClient c = new BinaryClient(gateway.port())) {
            assertEquals(SUCCESS, c.set("large", initial.toString(), 0, 0).status());
            assertEquals(SUCCESS, single(c, SUBDOC_ARRAY_PUSH_FIRST, "large", "list", front.toString(), 0).status());
            assertEquals(SUCCESS, single(c, SUBDOC_ARRAY_INSERT, "large", "list[" + count + "]", "\"mid\"", 0)
                    .status());
            Response read = lookup(c, "large", lookupSpec(SUBDOC_GET_COUNT, 0, "list"),
                    lookupSpec(SUBDOC_GET, 0, "list[0]"), lookupSpec(SUBDOC_GET, 0, "list[" + (count - 1) + "]"),
                    lookupSpec(SUBDOC_GET, 0, "list[" + count + "]"), lookupSpec(SUBDOC_GET, 0, "list[-1]"));
            assertEquals(List.of("0:" + (2 * count + 1), "0:-1", "0:-" + count, "0:\"mid\"", "0:" + (count - 1)),
                    results(read));
        }
    }

    @Test
    void concurrentChangesOfOneDocumentAllLand() throws Exception {
        int clients = 4;
        int each = 50;
        try (BinaryClient c = new BinaryClient(gateway.port())) {
            assertEquals(SUCCESS, c.set("hot", "{\"n\":0,\"seen\":[]}", 0, 0).status());
        }
        ExecutorService pool = Executors.newFixedThreadPool(clients);
        try {
            List<Future<?>> running = new ArrayList<>();
            for (int client = 0; client < clients; client++) {
                int id = client;
                running.add(pool.submit(() -> {
                    try (BinaryClient c = new BinaryClient(gateway.port())) {
                        // Pipelined: each connection's changes race the others' for the document's CAS.
                        byte[][] frames = new byte[each][];
                        for (int i = 0; i < each; i++) {
                            frames[i] = frame(SUBDOC_MULTI_MUTATION, NONE, bytes("hot"), concat(
                                    mutationSpec(SUBDOC_COUNTER, 0, "n", "1"),
                                    mutationSpec(SUBDOC_ARRAY_PUSH_LAST, 0, "seen", "\"" + id + "-" + i + "\"")),
                                    0, i);
                        }
                        c.send(frames);
                        for (int i = 0; i < each; i++) {
                            assertEquals(SUCCESS, c.read().status());
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> future : running) {
                future.get();
            }
        } finally {
            pool.shutdownNow();
        }
        try (BinaryClient c = new BinaryClient(gateway.port())) {
            Response counted = lookup(c, "hot", lookupSpec(SUBDOC_GET, 0, "n"),
                    lookupSpec(SUBDOC_GET_COUNT, 0, "seen"));
            assertEquals(List.of("0:" + clients * each, "0:" + clients * each), results(counted));
        }
    }
}
