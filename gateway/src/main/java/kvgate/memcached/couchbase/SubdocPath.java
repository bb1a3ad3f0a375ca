package kvgate.memcached.couchbase;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.util.ArrayList;
import java.util.List;
import kvgate.memcached.binary.BinaryRefusal;
import kvgate.memcached.binary.BinaryStatus;

/**
 * A sub-document path, as Couchbase writes it (N1QL's syntax): names separated by dots, array positions in brackets
 * right after the array ({@code a.b[0].c}, {@code [2]} for a document that is an array), {@code [-1]} for the last
 * element. A name holding a dot or a bracket is written between backticks, a backtick in it doubled; JSON's escapes
 * ({@code \"}) stand for the characters they escape, as the path is also JSON text.
 *
 * @param components the steps from the document's root; none for the root itself
 */
record SubdocPath(List<Component> components) {
    /**
     * The levels a path may reach, the document's root among them (so a path has at most one step fewer), as a
     * Couchbase server counts them.
     */
    static final int MAX_COMPONENTS = 32;
    /** The longest path, in bytes, as a Couchbase server allows. */
    static final int MAX_LENGTH = 1024;
    static final SubdocPath ROOT = new SubdocPath(List.of());
    /** Reads a name's escapes as one JSON string: anything after the string's end (an unescaped quote) is refused. */
    private static final ObjectMapper JSON = JsonMapper.builder()
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS).build();

    /** One step: into an object by name, or into an array by position. */
    sealed interface Component permits Name, Index {
    }

    record Name(String name) implements Component {
    }

    /** A position in an array; {@link #LAST} is the last element. */
    record Index(int index) implements Component {
        static final int LAST = -1;
    }

    SubdocPath {
        components = List.copyOf(components);
    }

    boolean isRoot() {
        return components.isEmpty();
    }

    Component last() {
        return components.get(components.size() - 1);
    }

    /** The path of the container the last step is taken in. */
    SubdocPath parent() {
        return new SubdocPath(components.subList(0, components.size() - 1));
    }

    /**
     * Parses {@code text}: a syntax error is {@link BinaryStatus#SUBDOC_PATH_EINVAL}, a path reaching more than
     * {@link #MAX_COMPONENTS} levels (root included) {@link BinaryStatus#SUBDOC_PATH_E2BIG}.
     */
    static SubdocPath parse(String text) throws BinaryRefusal {
        List<Component> components = new ArrayList<>();
        int at = 0;
        int length = text.length();
        boolean expectName = true; // at the start, or after a dot: a name (or, at the start only, an index)
        while (at < length) {
            char c = text.charAt(at);
            if (c == '[') {
                if (expectName && at != 0) {
                    throw invalid(); // "a.[0]"
                }
                int close = text.indexOf(']', at);
                if (close < 0) {
                    throw invalid();
                }
                components.add(new Index(index(text.substring(at + 1, close))));
                at = close + 1;
                expectName = false;
            } else if (expectName) {
                at = name(text, at, components);
                expectName = false;
            } else if (c == '.') {
                at++;
                expectName = true;
                if (at == length) {
                    throw invalid(); // "a."
                }
            } else {
                throw invalid(); // "a[0]b"
            }
            if (components.size() >= MAX_COMPONENTS) {
                throw new BinaryRefusal(BinaryStatus.SUBDOC_PATH_E2BIG);
            }
        }
        return new SubdocPath(components);
    }

    /**
     * Reads the name starting at {@code at} into {@code components}, up to the next dot or bracket; returns where it
     * ends. Backticks quote what would end it, a doubled backtick standing for itself.
     */
    private static int name(String text, int at, List<Component> components) throws BinaryRefusal {
        StringBuilder name = new StringBuilder();
        int length = text.length();
        while (at < length && text.charAt(at) != '.' && text.charAt(at) != '[') {
            char c = text.charAt(at++);
            if (c == ']') {
                throw invalid();
            }
            if (c != '`') {
                name.append(c);
                continue;
            }
            while (true) { // quoted: up to the closing backtick
                if (at >= length) {
                    throw invalid();
                }
                char q = text.charAt(at++);
                if (q != '`') {
                    name.append(q);
                } else if (at < length && text.charAt(at) == '`') {
                    name.append('`');
                    at++;
                } else {
                    break;
                }
            }
        }
        if (name.length() == 0) {
            throw invalid(); // "a..b", ".a"
        }
        String read = name.toString();
        components.add(new Name(read.indexOf('\\') >= 0 || read.indexOf('"') >= 0 ? unescape(read) : read));
        return at;
    }

    /** An array position: digits, or -1 for the last element. */
    private static int index(String digits) throws BinaryRefusal {
        if (digits.equals("-1")) {
            return Index.LAST;
        }
        if (digits.isEmpty() || digits.length() > 9 || !digits.chars().allMatch(Character::isDigit)) {
            throw invalid();
        }
        return Integer.parseInt(digits);
    }

    /**
     * A name's JSON escapes, read as JSON reads them; a quote must be escaped too, or the name would end there and
     * what follows would name another field.
     */
    private static String unescape(String name) throws BinaryRefusal {
        try {
            return JSON.readValue("\"" + name + "\"", String.class);
        } catch (JsonProcessingException e) {
            throw invalid();
        }
    }

    private static BinaryRefusal invalid() {
        return new BinaryRefusal(BinaryStatus.SUBDOC_PATH_EINVAL);
    }
}
