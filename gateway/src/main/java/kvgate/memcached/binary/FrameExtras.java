package kvgate.memcached.binary;

/**
 * The flexible framing extras of a request (magic 0x08, which a client sends once HELLO granted feature 0x10), read
 * and checked as a Couchbase server does. Each frame info is a byte of two nibbles, its id and its length (15 in
 * either: one more byte follows, to be added), then that many bytes of data.
 *
 * <p>Of the frame infos a client may send, the gateway acts on Preserve TTL. A barrier changes nothing, as a
 * connection's requests already run in order; a DCP stream id names a stream this gateway has none of. Durability
 * requirements are refused as impossible, as the gateway cannot know when a backend has replicated or persisted a
 * write; impersonation needs a privilege no user here has.
 *
 * @param preserveTtl whether a store keeps the expiry of the item it replaces (the request's own expiry then applies
 *     only to an item it creates)
 */
public record FrameExtras(boolean preserveTtl) {
    /** A request without framing extras, or with none the gateway acts on. */
    public static final FrameExtras NONE = new FrameExtras(false);
    private static final FrameExtras PRESERVE_TTL = new FrameExtras(true);

    private static final int BARRIER = 0;
    private static final int DURABILITY = 1;
    private static final int DCP_STREAM_ID = 2;
    private static final int IMPERSONATE = 4;
    private static final int PRESERVE_TTL_ID = 5;
    private static final int IMPERSONATE_PRIVILEGE = 6;
    private static final int IMPERSONATE_TOKEN = 7;
    /** A nibble of 15: the id or length goes on in the next byte. */
    private static final int ESCAPE = 15;
    /** Durability levels: majority, majority and persisted on the active node, persisted on a majority. */
    private static final int LEVEL_MAJORITY = 1;
    private static final int LEVEL_PERSIST_TO_MAJORITY = 3;

    /**
     * Reads the framing extras of a request for {@code opcode}; the first frame info that cannot be served refuses
     * the request with the status a Couchbase server gives.
     */
    public static FrameExtras read(byte[] framing, Opcode opcode) throws BinaryRefusal {
        boolean preserveTtl = false;
        int at = 0;
        while (at < framing.length) {
            int head = framing[at++] & 0xff;
            int id = head >>> 4;
            int length = head & 0x0f;
            if (id == ESCAPE) {
                at = need(framing, at, 1);
                id += framing[at - 1] & 0xff;
            }
            if (length == ESCAPE) {
                at = need(framing, at, 1);
                length += framing[at - 1] & 0xff;
            }
            int data = at;
            at = need(framing, at, length);
            switch (id) {
                case BARRIER -> require(length == 0);
                case DURABILITY -> refuseDurability(framing, data, length, opcode);
                case DCP_STREAM_ID -> require(length == 2);
                case IMPERSONATE_TOKEN -> {
                    require(length == 2);
                    throw new BinaryRefusal(BinaryStatus.NO_ACCESS);
                }
                case IMPERSONATE, IMPERSONATE_PRIVILEGE -> {
                    require(length > 0);
                    throw new BinaryRefusal(BinaryStatus.NO_ACCESS);
                }
                case PRESERVE_TTL_ID -> {
                    require(length == 0);
                    if (!opcode.takesPreserveTtl()) {
                        throw new BinaryRefusal(BinaryStatus.NOT_SUPPORTED);
                    }
                    preserveTtl = true;
                }
                default -> throw new BinaryRefusal(BinaryStatus.UNKNOWN_FRAME_INFO);
            }
        }
        return preserveTtl ? PRESERVE_TTL : NONE;
    }

    /** Where reading goes on after {@code length} more bytes from {@code at}, which the extras must hold. */
    private static int need(byte[] framing, int at, int length) throws BinaryRefusal {
        require(length <= framing.length - at);
        return at + length;
    }

    private static void require(boolean wellFormed) throws BinaryRefusal {
        if (!wellFormed) {
            throw new BinaryRefusal(BinaryStatus.INVALID_ARGUMENTS);
        }
    }

    /**
     * A durability requirement: a level byte and an optional 16-bit timeout in milliseconds (0 and 0xffff are
     * reserved). A malformed one is refused as a Couchbase server does; a sound one as impossible to meet.
     */
    private static void refuseDurability(byte[] framing, int data, int length, Opcode opcode) throws BinaryRefusal {
        require(length == 1 || length == 3);
        int level = framing[data] & 0xff;
        int timeout = length == 3 ? (framing[data + 1] & 0xff) << 8 | framing[data + 2] & 0xff : -1;
        if (level < LEVEL_MAJORITY || level > LEVEL_PERSIST_TO_MAJORITY || timeout == 0 || timeout == 0xffff) {
            throw new BinaryRefusal(BinaryStatus.DURABILITY_INVALID_LEVEL);
        }
        require(opcode.takesDurability());
        throw new BinaryRefusal(BinaryStatus.DURABILITY_IMPOSSIBLE);
    }
}
