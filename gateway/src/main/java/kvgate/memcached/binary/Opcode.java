package kvgate.memcached.binary;

/**
 * The opcodes this gateway serves, each with the request shape memcached accepts for it. A request of another
 * shape is answered {@link BinaryStatus#INVALID_ARGUMENTS}; an opcode not listed, {@link BinaryStatus#UNKNOWN_COMMAND}.
 */
public enum Opcode {
    GET(0x00, 0, Key.REQUIRED, Value.NONE),
    SET(0x01, 8, Key.REQUIRED, Value.ANY),
    ADD(0x02, 8, Key.REQUIRED, Value.ANY),
    REPLACE(0x03, 8, Key.REQUIRED, Value.ANY),
    DELETE(0x04, 0, Key.REQUIRED, Value.NONE),
    INCREMENT(0x05, 20, Key.REQUIRED, Value.NONE),
    DECREMENT(0x06, 20, Key.REQUIRED, Value.NONE),
    QUIT(0x07, 0, Key.NONE, Value.NONE),
    FLUSH(0x08, -4, Key.NONE, Value.NONE),
    GETQ(0x09, 0, Key.REQUIRED, Value.NONE),
    NOOP(0x0a, 0, Key.NONE, Value.NONE),
    VERSION(0x0b, 0, Key.NONE, Value.NONE),
    GETK(0x0c, 0, Key.REQUIRED, Value.NONE),
    GETKQ(0x0d, 0, Key.REQUIRED, Value.NONE),
    APPEND(0x0e, 0, Key.REQUIRED, Value.ANY),
    PREPEND(0x0f, 0, Key.REQUIRED, Value.ANY),
    STAT(0x10, 0, Key.OPTIONAL, Value.NONE),
    SETQ(0x11, 8, Key.REQUIRED, Value.ANY),
    ADDQ(0x12, 8, Key.REQUIRED, Value.ANY),
    REPLACEQ(0x13, 8, Key.REQUIRED, Value.ANY),
    DELETEQ(0x14, 0, Key.REQUIRED, Value.NONE),
    INCREMENTQ(0x15, 20, Key.REQUIRED, Value.NONE),
    DECREMENTQ(0x16, 20, Key.REQUIRED, Value.NONE),
    QUITQ(0x17, 0, Key.NONE, Value.NONE),
    FLUSHQ(0x18, -4, Key.NONE, Value.NONE),
    APPENDQ(0x19, 0, Key.REQUIRED, Value.ANY),
    PREPENDQ(0x1a, 0, Key.REQUIRED, Value.ANY),
    VERBOSITY(0x1b, 4, Key.NONE, Value.NONE),
    TOUCH(0x1c, 4, Key.REQUIRED, Value.NONE),
    GAT(0x1d, 4, Key.REQUIRED, Value.NONE),
    GATQ(0x1e, 4, Key.REQUIRED, Value.NONE),
    HELLO(0x1f, 0, Key.OPTIONAL, Value.PAIRS),
    SASL_LIST_MECHS(0x20, 0, Key.NONE, Value.NONE),
    /** The mechanism in the key, the client's first message in the value. */
    SASL_AUTH(0x21, 0, Key.REQUIRED, Value.ANY),
    SASL_STEP(0x22, 0, Key.REQUIRED, Value.ANY),
    SELECT_BUCKET(0x89, 0, Key.REQUIRED, Value.NONE),
    /** Couchbase's metadata read; the optional extras byte is the reply's version (2 adds the datatype). */
    GET_META(0xa0, -1, Key.REQUIRED, Value.NONE),
    GET_CLUSTER_CONFIG(0xb5, 0, Key.NONE, Value.NONE),
    SET_COLLECTIONS_MANIFEST(0xb9, 0, Key.NONE, Value.REQUIRED),
    GET_COLLECTIONS_MANIFEST(0xba, 0, Key.NONE, Value.NONE),
    /** The path comes in the key (older clients) or the value (newer ones), not both. */
    GET_COLLECTION_ID(0xbb, 0, Key.OPTIONAL, Value.ANY),
    GET_SCOPE_ID(0xbc, 0, Key.OPTIONAL, Value.ANY),
    // The sub-document commands: their extras and value are checked by the Couchbase package, which reads them.
    SUBDOC_GET(0xc5, Opcode.SUBDOC_EXTRAS, Key.REQUIRED, Value.ANY),
    SUBDOC_EXISTS(0xc6, Opcode.SUBDOC_EXTRAS, Key.REQUIRED, Value.ANY),
    SUBDOC_DICT_ADD(0xc7, Opcode.SUBDOC_EXTRAS, Key.REQUIRED, Value.ANY),
    SUBDOC_DICT_UPSERT(0xc8, Opcode.SUBDOC_EXTRAS, Key.REQUIRED, Value.ANY),
    SUBDOC_DELETE(0xc9, Opcode.SUBDOC_EXTRAS, Key.REQUIRED, Value.ANY),
    SUBDOC_REPLACE(0xca, Opcode.SUBDOC_EXTRAS, Key.REQUIRED, Value.ANY),
    SUBDOC_ARRAY_PUSH_LAST(0xcb, Opcode.SUBDOC_EXTRAS, Key.REQUIRED, Value.ANY),
    SUBDOC_ARRAY_PUSH_FIRST(0xcc, Opcode.SUBDOC_EXTRAS, Key.REQUIRED, Value.ANY),
    SUBDOC_ARRAY_INSERT(0xcd, Opcode.SUBDOC_EXTRAS, Key.REQUIRED, Value.ANY),
    SUBDOC_ARRAY_ADD_UNIQUE(0xce, Opcode.SUBDOC_EXTRAS, Key.REQUIRED, Value.ANY),
    SUBDOC_COUNTER(0xcf, Opcode.SUBDOC_EXTRAS, Key.REQUIRED, Value.ANY),
    SUBDOC_MULTI_LOOKUP(0xd0, Opcode.SUBDOC_EXTRAS, Key.REQUIRED, Value.ANY),
    SUBDOC_MULTI_MUTATION(0xd1, Opcode.SUBDOC_EXTRAS, Key.REQUIRED, Value.ANY),
    SUBDOC_GET_COUNT(0xd2, Opcode.SUBDOC_EXTRAS, Key.REQUIRED, Value.ANY),
    /** The value is the highest error map version the client reads, a 16-bit number. */
    GET_ERROR_MAP(0xfe, 0, Key.NONE, Value.U16);

    /** The extras length of a command whose extras its own reader checks (the sub-document commands). */
    private static final int SUBDOC_EXTRAS = Integer.MIN_VALUE;
    /** The longest key memcached accepts. */
    public static final int MAX_KEY_LENGTH = 250;
    /** The longest key on a collections connection, LEB128 collection-id prefix included. */
    public static final int MAX_COLLECTION_KEY_LENGTH = 251;

    enum Key { REQUIRED, OPTIONAL, NONE }

    enum Value {
        NONE,
        ANY,
        REQUIRED,
        /** A list of 16-bit codes: an even number of bytes. */
        PAIRS,
        /** One 16-bit number. */
        U16
    }

    private static final Opcode[] BY_CODE = new Opcode[256];

    static {
        for (Opcode opcode : values()) {
            BY_CODE[opcode.code] = opcode;
        }
    }

    private final int code;
    /**
     * The one extras length allowed, or minus the one length allowed besides none (flush: none or 4), or
     * {@link #SUBDOC_EXTRAS} for a sub-document command, whose several lengths its reader checks.
     */
    private final int extras;
    private final Key key;
    private final Value value;

    Opcode(int code, int extras, Key key, Value value) {
        this.code = code;
        this.extras = extras;
        this.key = key;
        this.value = value;
    }

    public int code() {
        return code;
    }

    /** The opcode with this code, or null when this gateway does not serve it. */
    public static Opcode of(int code) {
        return code >= 0 && code < BY_CODE.length ? BY_CODE[code] : null;
    }

    /** Quiet opcodes answer only on error (and the quiet gets not even on a miss). */
    public boolean quiet() {
        return switch (this) {
            case GETQ, GETKQ, GATQ, SETQ, ADDQ, REPLACEQ, DELETEQ, INCREMENTQ, DECREMENTQ, QUITQ, FLUSHQ, APPENDQ,
                    PREPENDQ -> true;
            default -> false;
        };
    }

    /**
     * Whether a connection that must authenticate may send this before it has: what a client needs to learn the
     * server and to authenticate (as memcached and Couchbase servers allow), and leaving.
     */
    public boolean beforeAuthentication() {
        return switch (this) {
            case HELLO, SASL_LIST_MECHS, SASL_AUTH, SASL_STEP, GET_ERROR_MAP, VERSION, NOOP, QUIT, QUITQ -> true;
            default -> false;
        };
    }

    /**
     * Whether the key names a document, so that on a collections connection it starts with a LEB128 collection id.
     */
    public boolean namesDocument() {
        return switch (this) {
            case GET, GETQ, GETK, GETKQ, SET, SETQ, ADD, ADDQ, REPLACE, REPLACEQ, DELETE, DELETEQ, INCREMENT,
                    INCREMENTQ, DECREMENT, DECREMENTQ, APPEND, APPENDQ, PREPEND, PREPENDQ, TOUCH, GAT, GATQ,
                    GET_META -> true;
            default -> subdocument();
        };
    }

    /**
     * Whether the request may ask, in its framing extras, to keep the expiry of the item it changes (Preserve TTL):
     * the commands that replace or change a document. Add, which only creates, and touch, which sets an expiry, may
     * not; append, prepend and arithmetic keep the expiry anyway.
     */
    public boolean takesPreserveTtl() {
        return switch (this) {
            case SET, SETQ, REPLACE, REPLACEQ, INCREMENT, INCREMENTQ, DECREMENT, DECREMENTQ, APPEND, APPENDQ, PREPEND,
                    PREPENDQ -> true;
            default -> subdocumentMutation();
        };
    }

    /** Whether the request may carry a durability requirement: the writes (quiet ones not, as on Couchbase). */
    public boolean takesDurability() {
        return switch (this) {
            case SET, ADD, REPLACE, DELETE, INCREMENT, DECREMENT, APPEND, PREPEND, TOUCH, GAT -> true;
            default -> subdocumentMutation();
        };
    }

    /**
     * A sub-document command that changes the document. The sub-document command table (which the Couchbase package
     * reads requests with) says the same of each; a test holds the two together.
     */
    public boolean subdocumentMutation() {
        return switch (this) {
            case SUBDOC_DICT_ADD, SUBDOC_DICT_UPSERT, SUBDOC_DELETE, SUBDOC_REPLACE, SUBDOC_ARRAY_PUSH_LAST,
                    SUBDOC_ARRAY_PUSH_FIRST, SUBDOC_ARRAY_INSERT, SUBDOC_ARRAY_ADD_UNIQUE, SUBDOC_COUNTER,
                    SUBDOC_MULTI_MUTATION -> true;
            default -> false;
        };
    }

    /** Whether this is a sub-document command (whose extras the Couchbase package's request reader checks). */
    public boolean subdocument() {
        return extras == SUBDOC_EXTRAS;
    }

    /**
     * Whether the collections documents require CAS and vbucket 0 (as well as datatype and extras) for this opcode.
     */
    public boolean managesCollections() {
        return switch (this) {
            case SET_COLLECTIONS_MANIFEST, GET_COLLECTIONS_MANIFEST, GET_COLLECTION_ID, GET_SCOPE_ID -> true;
            default -> false;
        };
    }

    /**
     * What is wrong with the shape of a request for this opcode, or null when it is well formed.
     *
     * @param collections whether the connection negotiated collections (document keys carry a collection id)
     */
    public String shapeProblem(BinaryRequest request, boolean collections) {
        int extrasLength = request.extras().length;
        boolean extrasFine = extras == SUBDOC_EXTRAS || (extras >= 0 ? extrasLength == extras
                : extrasLength == 0 || extrasLength == -extras);
        if (!extrasFine) {
            return name() + " takes " + (extras >= 0 ? extras : "0 or " + -extras) + " bytes of extras, not "
                    + extrasLength;
        }
        int keyLength = request.key().length;
        if (key == Key.REQUIRED && keyLength == 0) {
            return name() + " needs a key";
        }
        if (key == Key.NONE && keyLength != 0) {
            return name() + " takes no key";
        }
        int maxKeyLength = collections && namesDocument() ? MAX_COLLECTION_KEY_LENGTH : MAX_KEY_LENGTH;
        if (keyLength > maxKeyLength) {
            return "key of " + keyLength + " bytes is longer than " + maxKeyLength;
        }
        if (managesCollections() && (request.cas() != 0 || request.vbucket() != 0)) {
            return name() + " takes CAS 0 and vbucket 0";
        }
        int valueLength = request.value().length;
        if (value == Value.NONE && valueLength != 0) {
            return name() + " takes no value";
        }
        if (value == Value.REQUIRED && valueLength == 0) {
            return name() + " needs a value";
        }
        if (value == Value.PAIRS && valueLength % 2 != 0) {
            return name() + " takes a value of 16-bit codes";
        }
        if (value == Value.U16 && valueLength != 2) {
            return name() + " takes a 16-bit value";
        }
        return null;
    }
}
