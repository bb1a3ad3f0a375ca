package kvgate.memcached.couchbase;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import kvgate.memcached.binary.BinaryRefusal;
import kvgate.memcached.binary.BinaryStatus;
import kvgate.spi.Item;
import org.junit.jupiter.api.Test;

/**
 * The sub-document engine alone, on seeded random documents and paths: whatever a path or a value holds, a command
 * either succeeds or fails with a sub-document status (never another exception), and a document that succeeds is
 * still JSON, within the depth limit. Beside it, the outcomes a Couchbase server gives on a few fixed cases.
 */
class SubdocDocumentTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int CASES = 3000;
    private static final String[] NAMES = {"a", "b", "list", "`x.y`", "n", "q\\\"", "$document", ""};
    private static final String[] VALUES = {"1", "-7", "\"s\"", "[1,2]", "{\"k\":true}", "null", "1.50", "{",
            "1,2,3", "9223372036854775807", "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]", "x"};

    private static SubdocRequest.Spec spec(SubdocRequest.Command command, String path, String value) {
        return new SubdocRequest.Spec(command, 0, path, value.getBytes(StandardCharsets.UTF_8));
    }

    private static SubdocDocument document(String json) {
        return new SubdocDocument(new Item(json.getBytes(StandardCharsets.UTF_8), 0, 1, Item.NEVER));
    }

    private static String text(byte[] bytes) {
        return new String(bytes, StandardCharsets.UTF_8);
    }

    @Test
    void randomCommandsSucceedOrFailWithASubdocStatusAndLeaveJson() throws Exception {
        Random random = new Random(20261126);
        Set<BinaryStatus> allowed = Set.of(BinaryStatus.SUBDOC_PATH_ENOENT, BinaryStatus.SUBDOC_PATH_MISMATCH,
                BinaryStatus.SUBDOC_PATH_EINVAL, BinaryStatus.SUBDOC_PATH_E2BIG, BinaryStatus.SUBDOC_DOC_E2DEEP,
                BinaryStatus.SUBDOC_VALUE_CANTINSERT, BinaryStatus.SUBDOC_DOC_NOTJSON,
                BinaryStatus.SUBDOC_NUM_ERANGE, BinaryStatus.SUBDOC_DELTA_EINVAL, BinaryStatus.SUBDOC_PATH_EEXISTS,
                BinaryStatus.SUBDOC_VALUE_ETOODEEP, BinaryStatus.SUBDOC_XATTR_UNKNOWN_VATTR);
        SubdocRequest.Command[] commands = SubdocRequest.Command.values();
        String[] documents = {"{}", "[]", "{\"a\":{\"b\":[1,{\"c\":2}]},\"list\":[1,\"x\",null],\"n\":5}",
                "[[1,2],[3,[4]]]", "not json", "{\"n\":99999999999999999999,\"f\":1.5}", "\"text\""};
        for (int i = 0; i < CASES; i++) {
            SubdocDocument document = document(documents[random.nextInt(documents.length)]);
            int steps = 1 + random.nextInt(4);
            for (int step = 0; step < steps; step++) {
                SubdocRequest.Command command = commands[random.nextInt(commands.length)];
                if (command == SubdocRequest.Command.DELETE_DOC) {
                    continue; // the execution's, not the document's
                }
                String path = command.wholeDocument() ? "" : path(random);
                String value = command == SubdocRequest.Command.COUNTER
                        ? Long.toString(random.nextInt(21) - 10) : VALUES[random.nextInt(VALUES.length)];
                // Now and then a lookup of an extended attribute, virtual or not.
                int flags = !command.mutation && random.nextInt(4) == 0 ? SubdocRequest.XATTR_PATH : 0;
                SubdocRequest.Spec spec = new SubdocRequest.Spec(command, flags, path,
                        (command.value ? value : "").getBytes(StandardCharsets.UTF_8));
                try {
                    if (command.mutation) {
                        document.mutate(spec, random.nextBoolean());
                    } else {
                        document.lookUp(spec);
                    }
                } catch (BinaryRefusal failure) {
                    assertTrue(allowed.contains(failure.status()), command + " " + path + ": " + failure.status());
                } catch (RuntimeException e) {
                    fail("case " + i + ": " + command + " at '" + path + "' with " + value + " threw " + e, e);
                }
            }
            byte[] after = document.bytes();
            try {
                JsonNode parsed = JSON.readTree(after);
                assertTrue(depth(parsed) <= SubdocDocument.MAX_DEPTH, "case " + i + " nests too deep");
            } catch (Exception notJson) {
                // Only a document that never was JSON, or a whole-document set of text that is not, stays so.
            }
        }
    }

    /** A path of a few steps from names and positions, now and then malformed. */
    private static String path(Random random) {
        StringBuilder path = new StringBuilder();
        int steps = 1 + random.nextInt(4);
        for (int i = 0; i < steps; i++) {
            if (random.nextInt(3) == 0) {
                path.append('[').append(random.nextInt(5) - 1).append(']');
            } else {
                if (path.length() > 0) {
                    path.append('.');
                }
                path.append(NAMES[random.nextInt(NAMES.length)]);
            }
        }
        return path.toString();
    }

    private static int depth(JsonNode node) {
        int deepest = 0;
        for (JsonNode child : node) {
            deepest = Math.max(deepest, depth(child));
        }
        return node.isContainerNode() ? deepest + 1 : 0;
    }

    @Test
    void mutationsApplyInOrderOnOneTree() throws Exception {
        SubdocDocument document = document("{\"list\":[3],\"n\":1}");
        List<byte[]> returned = new ArrayList<>();
        returned.add(document.mutate(spec(SubdocRequest.Command.ARRAY_PUSH_FIRST, "list", "1,2"), false));
        returned.add(document.mutate(spec(SubdocRequest.Command.COUNTER, "n", "41"), false));
        returned.add(document.mutate(spec(SubdocRequest.Command.DICT_ADD, "m.o", "{}"), true));
        returned.add(document.mutate(spec(SubdocRequest.Command.ARRAY_INSERT, "list[3]", "4"), false));
        assertEquals("{\"list\":[1,2,3,4],\"n\":42,\"m\":{\"o\":{}}}", text(document.bytes()));
        assertEquals("42", text(returned.get(1)));
        assertEquals(null, returned.get(0));
        assertEquals("4", text(document.lookUp(spec(SubdocRequest.Command.GET_COUNT, "list", ""))));
    }

    @Test
    void aWholeDocumentSetReplacesTheBodyThatLaterPathsChange() throws Exception {
        SubdocDocument document = document("{\"old\":true}");
        document.mutate(spec(SubdocRequest.Command.SET_DOC, "", "{\"new\":1}"), false);
        document.mutate(spec(SubdocRequest.Command.DICT_UPSERT, "more", "2"), false);
        assertEquals("{\"new\":1,\"more\":2}", text(document.bytes()));
        // Set as it came, byte for byte, when no path changes it afterwards.
        document.mutate(spec(SubdocRequest.Command.SET_DOC, "", "{ \"spaced\" : 1 }"), false);
        assertEquals("{ \"spaced\" : 1 }", text(document.bytes()));
    }

    @Test
    void aDocumentCreatedForItsFirstPathIsAnObjectOrAnArray() {
        assertEquals("{}", text(SubdocDocument.created(spec(SubdocRequest.Command.DICT_UPSERT, "a", "1")).bytes()));
        assertEquals("[]", text(SubdocDocument.created(spec(SubdocRequest.Command.ARRAY_PUSH_LAST, "", "1"))
                .bytes()));
        assertEquals("[]", text(SubdocDocument.created(spec(SubdocRequest.Command.REPLACE, "[0]", "1")).bytes()));
    }
}
