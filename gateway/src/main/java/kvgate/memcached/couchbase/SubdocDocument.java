package kvgate.memcached.couchbase;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ContainerNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.LongNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.zip.CRC32C;
import kvgate.memcached.binary.BinaryRefusal;
import kvgate.memcached.binary.BinaryResponse;
import kvgate.memcached.binary.BinaryStatus;
import kvgate.spi.Item;

/**
 * A document as the sub-document commands see it: JSON, read once, then looked up and changed path by path. The
 * changes of a multi-path mutation apply one after the other to the same tree, so a later path sees an earlier one's
 * effect, and {@link #bytes()} gives the document to store once all have succeeded.
 *
 * <p>What is written back, and what a lookup answers, is the same JSON written compactly: members keep their order
 * and a decimal its digits (it is read as a decimal, not a double), but the stored text's spacing, a number's
 * exponent form ({@code 1e5} becomes {@code 1E+5}), a negative zero and a string's optional escapes are not kept, and
 * of a member given twice the last stays.
 */
final class SubdocDocument {
    /** The most levels a document may have, its root one of them, as a Couchbase server allows. */
    static final int MAX_DEPTH = 32;
    /**
     * Reads documents and values: no deeper than {@link #MAX_DEPTH} (deeper is an answer of its own, not a parse),
     * strings and names as long as an item may be, one value and nothing after it.
     */
    private static final ObjectMapper JSON = JsonMapper.builder(JsonFactory.builder()
                    .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(MAX_DEPTH)
                            .maxStringLength(Integer.MAX_VALUE).maxNameLength(Integer.MAX_VALUE).build())
                    .build())
            .nodeFactory(JsonNodeFactory.withExactBigDecimals(true))
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .build();
    private static final JsonNodeFactory NODES = JSON.getNodeFactory();
    /** A counter's delta as a Couchbase server takes it: an optional minus and at most 19 digits. */
    private static final Pattern DELTA = Pattern.compile("-?[0-9]{1,19}");

    /** The stored item, whose metadata the virtual attributes tell; null for a document a mutation creates. */
    private final Item item;
    /** The stored bytes, as long as no change was made; the whole-document get answers them as they are. */
    private byte[] raw;
    /** The parsed document; null until a path needs it. */
    private JsonNode root;
    /** Why the stored bytes are no document to look into, once a path found out; null before, or when they are. */
    private BinaryRefusal unreadable;
    /** The virtual attribute {@code $document}, made once for all the paths that read it. */
    private ObjectNode documentAttribute;

    /** The stored document {@code item} holds. */
    SubdocDocument(Item item) {
        this.item = item;
        this.raw = item.value();
    }

    private SubdocDocument() {
        this.item = null;
    }

    /** A missing document a mutation creates: an empty object, or an empty array for a first path that wants one. */
    static SubdocDocument created(SubdocRequest.Spec first) {
        boolean array = first.path().startsWith("[") || first.path().isEmpty()
                && (first.command() == SubdocRequest.Command.ARRAY_PUSH_LAST
                || first.command() == SubdocRequest.Command.ARRAY_PUSH_FIRST
                || first.command() == SubdocRequest.Command.ARRAY_ADD_UNIQUE);
        SubdocDocument document = new SubdocDocument();
        document.root = array ? NODES.arrayNode() : NODES.objectNode();
        return document;
    }

    /** The item the document was read from; null for one a mutation creates. */
    Item stored() {
        return item;
    }

    /** The document to store: the stored bytes when nothing changed them, else the changed tree as JSON. */
    byte[] bytes() {
        return raw != null ? raw : root.toString().getBytes(StandardCharsets.UTF_8);
    }

    /** What a lookup path finds: its value (empty for {@code EXISTS}). */
    byte[] lookUp(SubdocRequest.Spec spec) throws BinaryRefusal {
        if (spec.command() == SubdocRequest.Command.GET_DOC) {
            return bytes();
        }
        SubdocPath path = path(spec);
        JsonNode found = find(spec.xattr() ? attributes(path) : root(), path);
        return switch (spec.command()) {
            case GET -> serialized(found);
            case EXISTS -> BinaryResponse.EMPTY;
            case GET_COUNT -> {
                if (!found.isContainerNode()) {
                    throw new BinaryRefusal(BinaryStatus.SUBDOC_PATH_MISMATCH);
                }
                yield Integer.toString(found.size()).getBytes(StandardCharsets.US_ASCII);
            }
            default -> throw new IllegalArgumentException(spec.command() + " is not a lookup");
        };
    }

    /**
     * Applies a mutation path; returns the value the reply carries for it (a counter's new value), else null.
     *
     * @param mkdir whether missing objects on the way are created (the path's flag, or a document flag that may
     *     create the document)
     */
    byte[] mutate(SubdocRequest.Spec spec, boolean mkdir) throws BinaryRefusal {
        if (spec.command() == SubdocRequest.Command.SET_DOC) {
            raw = spec.value();
            root = null;
            unreadable = null;
            return null;
        }
        SubdocPath path = path(spec);
        JsonNode tree = root();
        byte[] returned = null;
        switch (spec.command()) {
            case DICT_ADD, DICT_UPSERT -> {
                if (!(path.last() instanceof SubdocPath.Name)) {
                    throw new BinaryRefusal(BinaryStatus.SUBDOC_PATH_EINVAL);
                }
                JsonNode value = value(spec.value(), path);
                Place place = place(tree, path, mkdir);
                if (spec.command() == SubdocRequest.Command.DICT_ADD && place.get() != null) {
                    throw new BinaryRefusal(BinaryStatus.SUBDOC_PATH_EEXISTS);
                }
                place.set(value);
            }
            case REPLACE -> {
                JsonNode value = value(spec.value(), path);
                Place place = place(tree, path, false);
                if (place.get() == null) {
                    throw new BinaryRefusal(BinaryStatus.SUBDOC_PATH_ENOENT);
                }
                place.set(value);
            }
            case DELETE -> {
                Place place = place(tree, path, false);
                if (place.get() == null) {
                    throw new BinaryRefusal(BinaryStatus.SUBDOC_PATH_ENOENT);
                }
                place.remove();
            }
            case ARRAY_PUSH_LAST, ARRAY_PUSH_FIRST -> {
                List<JsonNode> values = values(spec.value(), path);
                ArrayNode array = array(tree, path, mkdir);
                insert(array, spec.command() == SubdocRequest.Command.ARRAY_PUSH_LAST ? array.size() : 0, values);
            }
            case ARRAY_INSERT -> {
                if (!(path.last() instanceof SubdocPath.Index index) || index.index() == SubdocPath.Index.LAST) {
                    throw new BinaryRefusal(BinaryStatus.SUBDOC_PATH_EINVAL);
                }
                List<JsonNode> values = values(spec.value(), path);
                ContainerNode<?> parent = container(tree, path.parent(), false);
                if (!(parent instanceof ArrayNode array)) {
                    throw new BinaryRefusal(BinaryStatus.SUBDOC_PATH_MISMATCH);
                }
                if (index.index() > array.size()) {
                    throw new BinaryRefusal(BinaryStatus.SUBDOC_PATH_ENOENT);
                }
                insert(array, index.index(), values);
            }
            case ARRAY_ADD_UNIQUE -> {
                JsonNode value = value(spec.value(), path);
                if (value.isContainerNode()) {
                    throw new BinaryRefusal(BinaryStatus.SUBDOC_VALUE_CANTINSERT);
                }
                ArrayNode array = array(tree, path, mkdir);
                String text = value.toString();
                for (JsonNode element : array) {
                    if (element.isContainerNode()) {
                        throw new BinaryRefusal(BinaryStatus.SUBDOC_PATH_MISMATCH);
                    }
                    // As a Couchbase server compares: as JSON text, so 1 and 1.0, or "1" and 1, differ.
                    if (element.toString().equals(text)) {
                        throw new BinaryRefusal(BinaryStatus.SUBDOC_PATH_EEXISTS);
                    }
                }
                array.add(value);
            }
            case COUNTER -> returned = counter(place(tree, path, mkdir), delta(spec.value()));
            default -> throw new IllegalArgumentException(spec.command() + " is not a path mutation");
        }
        raw = null;
        return returned;
    }

    /** Adds {@code delta} to the integer at {@code place}, creating it as {@code delta} where it is missing. */
    private static byte[] counter(Place place, long delta) throws BinaryRefusal {
        JsonNode current = place.get();
        long result;
        if (current == null) {
            result = delta;
        } else if (!current.isIntegralNumber()) {
            throw new BinaryRefusal(BinaryStatus.SUBDOC_PATH_MISMATCH);
        } else if (!current.canConvertToLong()) {
            throw new BinaryRefusal(BinaryStatus.SUBDOC_NUM_ERANGE);
        } else {
            try {
                result = Math.addExact(current.longValue(), delta);
            } catch (ArithmeticException e) {
                throw new BinaryRefusal(BinaryStatus.SUBDOC_VALUE_CANTINSERT);
            }
        }
        place.set(LongNode.valueOf(result));
        return Long.toString(result).getBytes(StandardCharsets.US_ASCII);
    }

    /** A counter's delta: a non-zero integer that fits 64 signed bits, in plain digits. */
    private static long delta(byte[] value) throws BinaryRefusal {
        String text = new String(value, StandardCharsets.US_ASCII);
        long delta = 0;
        if (DELTA.matcher(text).matches()) {
            try {
                delta = Long.parseLong(text);
            } catch (NumberFormatException beyond64Bits) {
                delta = 0;
            }
        }
        if (delta == 0) {
            throw new BinaryRefusal(BinaryStatus.SUBDOC_DELTA_EINVAL);
        }
        return delta;
    }

    /**
     * Puts {@code values} into {@code array} before position {@code at} in one pass: an insert of each in turn would
     * move the elements after it once per value, which for the many values a large request carries is quadratic.
     */
    private static void insert(ArrayNode array, int at, List<JsonNode> values) {
        if (at == array.size()) {
            array.addAll(values);
            return;
        }
        List<JsonNode> elements = new ArrayList<>(array.size() + values.size());
        array.forEach(elements::add);
        elements.addAll(at, values);
        array.removeAll();
        array.addAll(elements);
    }

    /**
     * The parsed document: one that is not JSON, or nests deeper than {@link #MAX_DEPTH} levels, fails every path
     * (found out once).
     */
    private JsonNode root() throws BinaryRefusal {
        if (unreadable != null) {
            throw unreadable;
        }
        if (root == null) {
            try {
                root = JSON.readTree(raw);
                if (root == null || root.isMissingNode()) {
                    throw new BinaryRefusal(BinaryStatus.SUBDOC_DOC_NOTJSON);
                }
            } catch (BinaryRefusal e) {
                unreadable = e;
                throw e;
            } catch (IOException e) {
                unreadable = new BinaryRefusal(tooDeep(e) ? BinaryStatus.SUBDOC_DOC_E2DEEP
                        : BinaryStatus.SUBDOC_DOC_NOTJSON);
                throw unreadable;
            }
        }
        return root;
    }

    /** Whether the parser gave up for nesting deeper than its limit, rather than for text that is no JSON. */
    private static boolean tooDeep(IOException e) {
        return e instanceof StreamConstraintsException && String.valueOf(e.getMessage()).contains("nesting depth");
    }

    /** Whether the stored bytes are JSON, found by reading them through without making the tree. */
    private boolean json() {
        if (root != null) {
            return true;
        }
        if (unreadable != null) {
            return false;
        }
        try (JsonParser parser = JSON.createParser(raw)) {
            if (parser.nextToken() == null) {
                return false;
            }
            parser.skipChildren();
            return parser.nextToken() == null;
        } catch (IOException e) {
            return false;
        }
    }

    /** The spec's path; the root only for a command that may take it (the request's reader refuses it earlier). */
    private static SubdocPath path(SubdocRequest.Spec spec) throws BinaryRefusal {
        SubdocPath path = SubdocPath.parse(spec.path());
        if (path.isRoot() && spec.command().path == SubdocRequest.Command.Needs.PATH) {
            throw new BinaryRefusal(BinaryStatus.SUBDOC_PATH_EINVAL);
        }
        return path;
    }

    /**
     * The extended attributes a lookup of {@code path} reads, as one object keyed by attribute: the virtual ones made
     * from the item. The gateway stores no others, so any other key finds nothing; an unknown virtual one (a key
     * starting with {@code $}) is an error.
     */
    private JsonNode attributes(SubdocPath path) throws BinaryRefusal {
        if (path.isRoot() || !(path.components().get(0) instanceof SubdocPath.Name name)) {
            throw new BinaryRefusal(BinaryStatus.SUBDOC_PATH_EINVAL); // an attribute is named by a key
        }
        String key = name.name();
        ObjectNode attributes = NODES.objectNode();
        switch (key) {
            case "$document" -> {
                if (documentAttribute == null) {
                    documentAttribute = documentAttribute();
                }
                attributes.set(key, documentAttribute);
            }
            case "$XTOC" -> attributes.putArray(key); // the keys of the stored attributes: none
            default -> {
                if (key.startsWith("$")) {
                    throw new BinaryRefusal(BinaryStatus.SUBDOC_XATTR_UNKNOWN_VATTR);
                }
            }
        }
        return attributes;
    }

    /**
     * {@code $document}: what the item's metadata says, in a Couchbase server's form. The CAS stands for the sequence
     * number too, as in GetMeta; the vbucket's uuid is 0, as the gateway's one vbucket never changes hands.
     */
    private ObjectNode documentAttribute() {
        ObjectNode document = NODES.objectNode();
        document.put("CAS", hex(item.cas(), 16));
        document.put("vbucket_uuid", hex(0, 16));
        document.put("seqno", hex(item.cas(), 16));
        document.put("exptime", item.expiresAt() == Item.NEVER ? 0 : item.expiresAt() / 1000);
        document.put("flags", Integer.toUnsignedLong(item.flags()));
        document.put("value_bytes", item.value().length);
        document.putArray("datatype").add(json() ? "json" : "raw");
        document.put("deleted", false);
        CRC32C crc = new CRC32C();
        crc.update(item.value());
        document.put("value_crc32c", hex(crc.getValue(), 8));
        return document;
    }

    private static String hex(long value, int digits) {
        String hex = Long.toHexString(value);
        return "0x" + "0".repeat(Math.max(0, digits - hex.length())) + hex;
    }

    /** The value at {@code path} below {@code tree}. */
    private static JsonNode find(JsonNode tree, SubdocPath path) throws BinaryRefusal {
        JsonNode at = tree;
        for (SubdocPath.Component component : path.components()) {
            at = step(at, component);
            if (at == null) {
                throw new BinaryRefusal(BinaryStatus.SUBDOC_PATH_ENOENT);
            }
        }
        return at;
    }

    /** One step down from {@code at}, or null where nothing is there; a step of the wrong kind is a mismatch. */
    private static JsonNode step(JsonNode at, SubdocPath.Component component) throws BinaryRefusal {
        if (component instanceof SubdocPath.Name name) {
            if (!at.isObject()) {
                throw new BinaryRefusal(BinaryStatus.SUBDOC_PATH_MISMATCH);
            }
            return at.get(name.name());
        }
        if (!at.isArray()) {
            throw new BinaryRefusal(BinaryStatus.SUBDOC_PATH_MISMATCH);
        }
        int index = ((SubdocPath.Index) component).index();
        return index == SubdocPath.Index.LAST ? (at.isEmpty() ? null : at.get(at.size() - 1)) : at.get(index);
    }

    /**
     * The object or array at {@code path}, creating the objects missing on the way when {@code mkdir} (never an array
     * element: there is no saying what would come before it).
     */
    private static ContainerNode<?> container(JsonNode tree, SubdocPath path, boolean mkdir) throws BinaryRefusal {
        JsonNode at = tree;
        for (SubdocPath.Component component : path.components()) {
            at = stepOrMake(at, component, mkdir, false);
        }
        if (!at.isContainerNode()) {
            throw new BinaryRefusal(BinaryStatus.SUBDOC_PATH_MISMATCH);
        }
        return (ContainerNode<?>) at;
    }

    /**
     * One step down from {@code at}; where nothing is there, with {@code mkdir} and a named step, a new empty object
     * (or array, {@code array}) put there, else {@link BinaryStatus#SUBDOC_PATH_ENOENT}.
     */
    private static JsonNode stepOrMake(JsonNode at, SubdocPath.Component component, boolean mkdir, boolean array)
            throws BinaryRefusal {
        JsonNode next = step(at, component);
        if (next != null) {
            return next;
        }
        if (!mkdir || !(component instanceof SubdocPath.Name name)) {
            throw new BinaryRefusal(BinaryStatus.SUBDOC_PATH_ENOENT);
        }
        return array ? ((ObjectNode) at).putArray(name.name()) : ((ObjectNode) at).putObject(name.name());
    }

    /** The array at {@code path}; with {@code mkdir}, a missing one is created empty (its parents too). */
    private static ArrayNode array(JsonNode tree, SubdocPath path, boolean mkdir) throws BinaryRefusal {
        if (path.isRoot()) {
            if (!tree.isArray()) {
                throw new BinaryRefusal(BinaryStatus.SUBDOC_PATH_MISMATCH);
            }
            return (ArrayNode) tree;
        }
        JsonNode found = stepOrMake(container(tree, path.parent(), mkdir), path.last(), mkdir, true);
        if (!found.isArray()) {
            throw new BinaryRefusal(BinaryStatus.SUBDOC_PATH_MISMATCH);
        }
        return (ArrayNode) found;
    }

    /**
     * Where a path's last step lands: a member of an object, which may be missing, or an existing element of an
     * array. A step of the other kind is a mismatch; an element past the array's end is not there.
     */
    private sealed interface Place permits Member, Element {
        /** What is there, or null for a missing member. */
        JsonNode get();

        void set(JsonNode value);

        void remove();
    }

    private record Member(ObjectNode object, String name) implements Place {
        public JsonNode get() {
            return object.get(name);
        }

        public void set(JsonNode value) {
            object.set(name, value);
        }

        public void remove() {
            object.remove(name);
        }
    }

    private record Element(ArrayNode array, int position) implements Place {
        public JsonNode get() {
            return array.get(position);
        }

        public void set(JsonNode value) {
            array.set(position, value);
        }

        public void remove() {
            array.remove(position);
        }
    }

    /** The place of {@code path}'s last step, in the container the steps before it reach. */
    private static Place place(JsonNode tree, SubdocPath path, boolean mkdir) throws BinaryRefusal {
        ContainerNode<?> parent = container(tree, path.parent(), mkdir);
        SubdocPath.Component last = path.last();
        if (parent instanceof ObjectNode object) {
            if (!(last instanceof SubdocPath.Name name)) {
                throw new BinaryRefusal(BinaryStatus.SUBDOC_PATH_MISMATCH);
            }
            return new Member(object, name.name());
        }
        ArrayNode array = (ArrayNode) parent;
        if (!(last instanceof SubdocPath.Index index)) {
            throw new BinaryRefusal(BinaryStatus.SUBDOC_PATH_MISMATCH);
        }
        int position = index.index() == SubdocPath.Index.LAST ? array.size() - 1 : index.index();
        if (position < 0 || position >= array.size()) {
            throw new BinaryRefusal(BinaryStatus.SUBDOC_PATH_ENOENT);
        }
        return new Element(array, position);
    }

    /** A value to insert: one JSON value, which must not make the document deeper than {@link #MAX_DEPTH}. */
    private static JsonNode value(byte[] text, SubdocPath path) throws BinaryRefusal {
        JsonNode value = parse(text);
        deepEnough(value, path);
        return value;
    }

    /** Values to insert into an array: one or more JSON values separated by commas. */
    private static List<JsonNode> values(byte[] text, SubdocPath path) throws BinaryRefusal {
        byte[] list = new byte[text.length + 2];
        list[0] = '[';
        System.arraycopy(text, 0, list, 1, text.length);
        list[list.length - 1] = ']';
        JsonNode parsed = parse(list);
        if (parsed.isEmpty()) {
            throw new BinaryRefusal(BinaryStatus.SUBDOC_VALUE_CANTINSERT);
        }
        // Each value goes one level below the array, which is itself at the path.
        deepEnough(parsed, path);
        List<JsonNode> values = new ArrayList<>(parsed.size());
        parsed.forEach(values::add);
        return values;
    }

    private static JsonNode parse(byte[] text) throws BinaryRefusal {
        try {
            JsonNode value = JSON.readTree(text);
            if (value == null || value.isMissingNode()) {
                throw new BinaryRefusal(BinaryStatus.SUBDOC_VALUE_CANTINSERT);
            }
            return value;
        } catch (IOException e) {
            throw new BinaryRefusal(tooDeep(e) ? BinaryStatus.SUBDOC_VALUE_ETOODEEP
                    : BinaryStatus.SUBDOC_VALUE_CANTINSERT);
        }
    }

    /** Whether {@code value} at {@code path} keeps the document within {@link #MAX_DEPTH} levels, its root one. */
    private static void deepEnough(JsonNode value, SubdocPath path) throws BinaryRefusal {
        if (1 + path.components().size() + depth(value) > MAX_DEPTH) {
            throw new BinaryRefusal(BinaryStatus.SUBDOC_VALUE_ETOODEEP);
        }
    }

    /** How many levels of containers {@code node} is: 0 for a primitive. */
    private static int depth(JsonNode node) {
        int deepest = 0;
        for (JsonNode child : node) {
            deepest = Math.max(deepest, depth(child));
        }
        return node.isContainerNode() ? deepest + 1 : 0;
    }

    private static byte[] serialized(JsonNode node) {
        return node.toString().getBytes(StandardCharsets.UTF_8);
    }
}
