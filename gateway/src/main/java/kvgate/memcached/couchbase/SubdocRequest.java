package kvgate.memcached.couchbase;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import kvgate.memcached.binary.BinaryRefusal;
import kvgate.memcached.binary.BinaryRequest;
import kvgate.memcached.binary.BinaryStatus;
import kvgate.memcached.binary.Opcode;

/**
 * A sub-document request read from its frame: the single-path commands (0xc5-0xcf, 0xd2) and the multi-path ones
 * (MULTI_LOOKUP 0xd0, MULTI_MUTATION 0xd1) become the same list of {@link Spec}s, so one engine serves both forms.
 * Checked as a Couchbase server checks them; a malformed request is refused as a whole (invalid arguments, or an
 * invalid combination of commands), where a path that fails on the document fails alone.
 *
 * @param multi whether the request is a multi-path one (its reply lists each path's outcome)
 * @param mutation whether it changes the document
 * @param docFlags the document flags ({@link #MKDOC}, {@link #ADD}, {@link #ACCESS_DELETED})
 * @param expiry memcached's expiry for the changed document (0: none, which clears the old one, as a Couchbase
 *     server does without a request to keep it)
 * @param userFlags the flags the changed document gets, or null to keep its own (0 for a new one)
 */
public record SubdocRequest(boolean multi, boolean mutation, int docFlags, int expiry, Integer userFlags,
                            List<Spec> specs) {
    /** Document flag: create the document when it is missing (as a set). */
    static final int MKDOC = 0x01;
    /** Document flag: the document must not exist (as an add). */
    static final int ADD = 0x02;
    /** Document flag: reach deleted documents too; this gateway keeps none, so it changes nothing. */
    static final int ACCESS_DELETED = 0x04;
    /** Path flag: create the objects missing on the way to the path. */
    static final int MKDIR_P = 0x01;
    /** Path flag: expand macros in an attribute's value; without {@link #XATTR_PATH} a combination of its own. */
    static final int EXPAND_MACROS = 0x10;
    /**
     * Path flag: the path names an extended attribute. The gateway stores none, so the virtual ones it makes from an
     * item ({@code $document}, {@code $XTOC}) are all there are: lookups read them, mutations are not served.
     */
    static final int XATTR_PATH = 0x04;
    /** The most paths a multi-path request may have, as a Couchbase server allows. */
    static final int MAX_SPECS = 16;

    /**
     * What a path does: the sub-document commands and, in multi-path requests, the whole-document ones (get, set
     * and delete with an empty path).
     */
    enum Command {
        GET_DOC(0x00, Acts.LOOKUP, Needs.NO_PATH, Takes.NO_VALUE, 0),
        GET(0xc5, Acts.LOOKUP, Needs.PATH, Takes.NO_VALUE, 0),
        EXISTS(0xc6, Acts.LOOKUP, Needs.PATH, Takes.NO_VALUE, 0),
        GET_COUNT(0xd2, Acts.LOOKUP, Needs.ANY_PATH, Takes.NO_VALUE, 0),
        SET_DOC(0x01, Acts.MUTATION, Needs.NO_PATH, Takes.VALUE, 0),
        DELETE_DOC(0x04, Acts.MUTATION, Needs.NO_PATH, Takes.NO_VALUE, 0),
        DICT_ADD(0xc7, Acts.MUTATION, Needs.PATH, Takes.VALUE, MKDIR_P),
        DICT_UPSERT(0xc8, Acts.MUTATION, Needs.PATH, Takes.VALUE, MKDIR_P),
        DELETE(0xc9, Acts.MUTATION, Needs.PATH, Takes.NO_VALUE, 0),
        REPLACE(0xca, Acts.MUTATION, Needs.PATH, Takes.VALUE, 0),
        ARRAY_PUSH_LAST(0xcb, Acts.MUTATION, Needs.ANY_PATH, Takes.VALUE, MKDIR_P),
        ARRAY_PUSH_FIRST(0xcc, Acts.MUTATION, Needs.ANY_PATH, Takes.VALUE, MKDIR_P),
        ARRAY_INSERT(0xcd, Acts.MUTATION, Needs.PATH, Takes.VALUE, 0),
        ARRAY_ADD_UNIQUE(0xce, Acts.MUTATION, Needs.ANY_PATH, Takes.VALUE, MKDIR_P),
        COUNTER(0xcf, Acts.MUTATION, Needs.PATH, Takes.VALUE, MKDIR_P);

        /** Whether the command reads the document or changes it: the two go in requests of their own. */
        enum Acts { LOOKUP, MUTATION }

        /** Whether the command's path may, must or must not be empty (the document's root). */
        enum Needs { PATH, ANY_PATH, NO_PATH }

        /** Whether the command carries a value (a JSON fragment, a delta, a whole document) or must not. */
        enum Takes { VALUE, NO_VALUE }

        private static final Command[] BY_CODE = new Command[256];

        static {
            for (Command command : values()) {
                BY_CODE[command.code] = command;
            }
        }

        final int code;
        final boolean mutation;
        final Needs path;
        final boolean value;
        /** The path flags the command takes besides {@link #XATTR_PATH} (which every one names, to refuse it). */
        final int pathFlags;

        Command(int code, Acts acts, Needs path, Takes takes, int pathFlags) {
            this.code = code;
            this.mutation = acts == Acts.MUTATION;
            this.path = path;
            this.value = takes == Takes.VALUE;
            this.pathFlags = pathFlags;
        }

        static Command of(int code) {
            return BY_CODE[code & 0xff];
        }

        /** Whether the command reads or changes the whole document rather than a path in it. */
        boolean wholeDocument() {
            return path == Needs.NO_PATH;
        }
    }

    /** One path of a request and what to do there. */
    record Spec(Command command, int flags, String path, byte[] value) {
        boolean mkdir() {
            return (flags & MKDIR_P) != 0;
        }

        /** Whether the path is in the extended attributes rather than the document. */
        boolean xattr() {
            return (flags & XATTR_PATH) != 0;
        }
    }

    boolean mkdoc() {
        return (docFlags & MKDOC) != 0;
    }

    boolean add() {
        return (docFlags & ADD) != 0;
    }

    /**
     * Reads a sub-document request; the key is the frame's (the document's), read by the caller.
     *
     * @param opcode the request's opcode (one of the sub-document opcodes)
     */
    public static SubdocRequest read(Opcode opcode, BinaryRequest request) throws BinaryRefusal {
        SubdocRequest read = opcode == Opcode.SUBDOC_MULTI_LOOKUP || opcode == Opcode.SUBDOC_MULTI_MUTATION
                ? readMulti(opcode == Opcode.SUBDOC_MULTI_MUTATION, request) : readSingle(opcode, request);
        int docFlags = read.docFlags;
        if ((docFlags & ~(read.mutation ? MKDOC | ADD | ACCESS_DELETED : ACCESS_DELETED)) != 0
                || read.mkdoc() && read.add() || read.add() && request.cas() != 0) {
            throw invalid();
        }
        return read;
    }

    private static SubdocRequest readMulti(boolean mutation, BinaryRequest request) throws BinaryRefusal {
        ByteBuffer extras = ByteBuffer.wrap(request.extras());
        int length = extras.remaining();
        boolean fine = mutation ? length == 0 || length == 1 || length == 4 || length == 5 || length == 8
                || length == 9 : length <= 1;
        if (!fine) {
            throw invalid();
        }
        int expiry = length >= 4 ? extras.getInt(0) : 0;
        Integer userFlags = length >= 8 ? extras.getInt(4) : null;
        int docFlags = length % 2 == 1 ? extras.get(length - 1) & 0xff : 0;
        ByteBuffer body = ByteBuffer.wrap(request.value());
        List<Spec> specs = new ArrayList<>();
        while (body.hasRemaining()) {
            Spec previous = specs.isEmpty() ? null : specs.get(specs.size() - 1);
            // A whole-document delete stands alone: nothing after it (nor, below, before it).
            if (specs.size() == MAX_SPECS || previous != null && previous.command() == Command.DELETE_DOC) {
                throw new BinaryRefusal(BinaryStatus.SUBDOC_INVALID_COMBO);
            }
            int header = mutation ? 8 : 4;
            if (body.remaining() < header) {
                throw invalid();
            }
            Command command = Command.of(body.get());
            int flags = body.get() & 0xff;
            int pathLength = body.getShort() & 0xffff;
            long valueLength = mutation ? body.getInt() & 0xffffffffL : 0;
            if (pathLength + valueLength > body.remaining()) {
                throw invalid();
            }
            if (command == null || command.mutation != mutation) {
                throw new BinaryRefusal(BinaryStatus.SUBDOC_INVALID_COMBO);
            }
            byte[] path = new byte[pathLength];
            body.get(path);
            byte[] value = new byte[(int) valueLength];
            body.get(value);
            if (command == Command.DELETE_DOC && previous != null) {
                throw new BinaryRefusal(BinaryStatus.SUBDOC_INVALID_COMBO);
            }
            Spec spec = spec(command, flags, path, value);
            // Extended attributes come first, as a Couchbase server requires: none after a path of the document.
            if (spec.xattr() && previous != null && !previous.xattr()) {
                throw new BinaryRefusal(BinaryStatus.SUBDOC_INVALID_XATTR_ORDER);
            }
            specs.add(spec);
        }
        if (specs.isEmpty()) {
            throw new BinaryRefusal(BinaryStatus.SUBDOC_INVALID_COMBO);
        }
        return new SubdocRequest(true, mutation, docFlags, expiry, userFlags, specs);
    }

    /**
     * A single-path command: extras of the path's length and flags, then optionally the expiry, the flags of the
     * document and the document flags; the value is the path, then the command's value.
     */
    private static SubdocRequest readSingle(Opcode opcode, BinaryRequest request) throws BinaryRefusal {
        Command command = Command.of(opcode.code());
        ByteBuffer extras = ByteBuffer.wrap(request.extras());
        int length = extras.remaining();
        boolean fine = command.mutation ? length == 3 || length == 4 || length == 7 || length == 8 || length == 11
                || length == 12 : length == 3 || length == 4;
        if (!fine) {
            throw invalid();
        }
        int pathLength = extras.getShort(0) & 0xffff;
        int flags = extras.get(2) & 0xff;
        int expiry = length >= 7 ? extras.getInt(3) : 0;
        Integer userFlags = length >= 11 ? extras.getInt(7) : null;
        int docFlags = length % 2 == 0 ? extras.get(length - 1) & 0xff : 0;
        byte[] body = request.value();
        if (pathLength > body.length) {
            throw invalid();
        }
        byte[] path = Arrays.copyOfRange(body, 0, pathLength);
        byte[] value = Arrays.copyOfRange(body, pathLength, body.length);
        return new SubdocRequest(false, command.mutation, docFlags, expiry, userFlags,
                List.of(spec(command, flags, path, value)));
    }

    /** A path's command checked for its flags, its path and its value: a misfit is invalid arguments. */
    private static Spec spec(Command command, int flags, byte[] path, byte[] value) throws BinaryRefusal {
        boolean xattr = (flags & XATTR_PATH) != 0;
        if ((flags & EXPAND_MACROS) != 0 && !xattr && command.mutation) {
            throw new BinaryRefusal(BinaryStatus.SUBDOC_XATTR_INVALID_FLAG_COMBO); // macros are for attributes
        }
        int allowed = command.pathFlags | (command.wholeDocument() ? 0 : XATTR_PATH)
                | (command.mutation && !command.wholeDocument() ? EXPAND_MACROS : 0);
        if ((flags & ~allowed) != 0 || path.length > SubdocPath.MAX_LENGTH || command.value != (value.length > 0)) {
            throw invalid();
        }
        if (xattr && command.mutation) {
            // A virtual attribute is made from the item and cannot be written; any other would have to be stored
            // beside the value, which no backend here can.
            throw new BinaryRefusal(path.length > 0 && path[0] == '$' ? BinaryStatus.SUBDOC_XATTR_CANT_MODIFY_VATTR
                    : BinaryStatus.NOT_SUPPORTED);
        }
        if (xattr && path.length == 0) {
            throw invalid(); // an attribute is named by its key, the path's first step
        }
        boolean pathFine = switch (command.path) {
            case PATH -> path.length > 0;
            case NO_PATH -> path.length == 0;
            case ANY_PATH -> true;
        };
        if (!pathFine) {
            throw invalid();
        }
        return new Spec(command, flags, new String(path, StandardCharsets.UTF_8), value);
    }

    private static BinaryRefusal invalid() {
        return new BinaryRefusal(BinaryStatus.INVALID_ARGUMENTS);
    }
}
