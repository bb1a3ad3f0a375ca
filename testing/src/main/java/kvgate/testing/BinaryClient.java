package kvgate.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * A memcached binary protocol client over a plain socket that shows every byte of the replies, for tests that must
 * check the wire format exactly (real client libraries hide it).
 */
public final class BinaryClient implements AutoCloseable {
    public static final int GET = 0x00, SET = 0x01, ADD = 0x02, REPLACE = 0x03, DELETE = 0x04, INCREMENT = 0x05,
            DECREMENT = 0x06, QUIT = 0x07, FLUSH = 0x08, GETQ = 0x09, NOOP = 0x0a, VERSION = 0x0b, GETK = 0x0c,
            GETKQ = 0x0d, APPEND = 0x0e, PREPEND = 0x0f, STAT = 0x10, SETQ = 0x11, ADDQ = 0x12, REPLACEQ = 0x13,
            DELETEQ = 0x14, INCREMENTQ = 0x15, DECREMENTQ = 0x16, QUITQ = 0x17, FLUSHQ = 0x18, APPENDQ = 0x19,
            PREPENDQ = 0x1a, VERBOSITY = 0x1b, TOUCH = 0x1c, GAT = 0x1d, GATQ = 0x1e, HELLO = 0x1f,
            SASL_LIST_MECHS = 0x20, SASL_AUTH = 0x21, SASL_STEP = 0x22, SELECT_BUCKET = 0x89,
            GET_CLUSTER_CONFIG = 0xb5, SET_COLLECTIONS_MANIFEST = 0xb9, GET_COLLECTIONS_MANIFEST = 0xba,
            GET_META = 0xa0, GET_COLLECTION_ID = 0xbb, GET_SCOPE_ID = 0xbc, GET_ERROR_MAP = 0xfe;
    /** The sub-document opcodes, which are also the commands of a multi-path request's specs. */
    public static final int SUBDOC_GET = 0xc5, SUBDOC_EXISTS = 0xc6, SUBDOC_DICT_ADD = 0xc7,
            SUBDOC_DICT_UPSERT = 0xc8, SUBDOC_DELETE = 0xc9, SUBDOC_REPLACE = 0xca, SUBDOC_ARRAY_PUSH_LAST = 0xcb,
            SUBDOC_ARRAY_PUSH_FIRST = 0xcc, SUBDOC_ARRAY_INSERT = 0xcd, SUBDOC_ARRAY_ADD_UNIQUE = 0xce,
            SUBDOC_COUNTER = 0xcf, SUBDOC_MULTI_LOOKUP = 0xd0, SUBDOC_MULTI_MUTATION = 0xd1,
            SUBDOC_GET_COUNT = 0xd2;
    /** HELLO feature codes. */
    public static final int XERROR = 0x07, SELECT_BUCKET_FEATURE = 0x08, JSON = 0x0b, ALT_REQUEST = 0x10,
            COLLECTIONS = 0x12, PRESERVE_TTL = 0x14;
    /** The frame info asking a store to keep the item's expiry: id 5, no data. */
    public static final byte[] PRESERVE_TTL_INFO = {0x50};
    public static final byte[] NONE = new byte[0];

    /** One response frame, fields as on the wire. */
    public record Response(int magic, int opcode, int dataType, int status, int opaque, long cas, byte[] extras,
                           byte[] key, byte[] value) {
        public String valueText() {
            return new String(value, StandardCharsets.UTF_8);
        }

        public String keyText() {
            return new String(key, StandardCharsets.UTF_8);
        }

        public int flags() {
            return ByteBuffer.wrap(extras).getInt();
        }

        public long number() {
            return ByteBuffer.wrap(value).getLong();
        }
    }

    private final ClientConnection connection;
    private final DataInputStream in;
    private final OutputStream out;
    private int nextOpaque = 1;

    public BinaryClient(int port) throws IOException {
        this(port, 5000);
    }

    /** A client whose every read fails with a {@link SocketTimeoutException} after {@code readTimeoutMillis}. */
    public BinaryClient(int port, int readTimeoutMillis) throws IOException {
        this(ClientConnection.tcp(port, readTimeoutMillis));
    }

    /** A client on the gateway's Unix domain socket. */
    public BinaryClient(Path socket) throws IOException {
        this(ClientConnection.unix(socket));
    }

    /** A client on a socket already connected, such as a TLS socket whose handshake is done. */
    public static BinaryClient over(Socket socket) throws IOException {
        return new BinaryClient(new ClientConnection(socket, socket.getInputStream(), socket.getOutputStream(),
                socket));
    }

    private BinaryClient(ClientConnection connection) {
        this.connection = connection;
        in = new DataInputStream(connection.in());
        out = connection.out();
    }

    /** The TCP socket; null on a Unix socket. */
    public Socket socket() {
        return connection.socket();
    }

    /** A request frame with magic 0x80 and the given parts. */
    public static byte[] frame(int opcode, byte[] extras, byte[] key, byte[] value, long cas, int opaque) {
        return frame(opcode, 0, 0, extras, key, value, cas, opaque);
    }

    /** A request frame with every header field given. */
    public static byte[] frame(int opcode, int dataType, int vbucket, byte[] extras, byte[] key, byte[] value,
                               long cas, int opaque) {
        ByteBuffer buffer = ByteBuffer.allocate(24 + extras.length + key.length + value.length);
        buffer.put((byte) 0x80).put((byte) opcode).putShort((short) key.length).put((byte) extras.length)
                .put((byte) dataType).putShort((short) vbucket).putInt(extras.length + key.length + value.length)
                .putInt(opaque).putLong(cas).put(extras).put(key).put(value);
        return buffer.array();
    }

    /**
     * A request frame in Couchbase's alternative framing (magic 0x08): the framing extras ahead of the extras,
     * their length in byte 2 and the key's (one byte) in byte 3.
     */
    public static byte[] altFrame(int opcode, byte[] framing, byte[] extras, byte[] key, byte[] value, long cas,
                                  int opaque) {
        int body = framing.length + extras.length + key.length + value.length;
        ByteBuffer buffer = ByteBuffer.allocate(24 + body);
        buffer.put((byte) 0x08).put((byte) opcode).put((byte) framing.length).put((byte) key.length)
                .put((byte) extras.length).put((byte) 0).putShort((short) 0).putInt(body).putInt(opaque).putLong(cas)
                .put(framing).put(extras).put(key).put(value);
        return buffer.array();
    }

    /**
     * A key on a collections connection: the collection id in canonical LEB128, then the key. Encoded here rather
     * than by the gateway's own encoder, so a test of the gateway's decoding does not lean on its code.
     */
    public static byte[] collectionKey(long collectionId, String key) {
        ByteArrayOutputStream leb128 = new ByteArrayOutputStream();
        long rest = collectionId;
        do {
            int low = (int) (rest & 0x7f);
            rest >>>= 7;
            leb128.write(rest == 0 ? low : low | 0x80);
        } while (rest != 0);
        byte[] prefix = leb128.toByteArray();
        byte[] logical = bytes(key);
        return ByteBuffer.allocate(prefix.length + logical.length).put(prefix).put(logical).array();
    }

    /** The expiry GetMeta tells of {@code key}, as a Unix time in seconds (0: none); the key must be there. */
    public int expiry(String key) throws IOException {
        Response meta = call(0xa0, NONE, bytes(key), NONE, 0);
        assertEquals(0, meta.status(), key);
        return ByteBuffer.wrap(meta.extras()).getInt(8);
    }

    /** Asserts that the connection still serves: a noop is answered, in its turn. */
    public void assertUsable() throws IOException {
        send(frame(NOOP, NONE, NONE, NONE, 0, 0x5151));
        Response noop = read();
        assertEquals(NOOP, noop.opcode());
        assertEquals(0x5151, noop.opaque());
        assertEquals(0, noop.status());
    }

    /** HELLO asking for {@code features}; answers the features granted. */
    public int[] hello(int... features) throws IOException {
        ByteBuffer asked = ByteBuffer.allocate(features.length * 2);
        for (int feature : features) {
            asked.putShort((short) feature);
        }
        Response response = call(HELLO, NONE, bytes("kvgate-test"), asked.array(), 0);
        if (response.status() != 0) {
            throw new IOException("HELLO failed with status " + response.status());
        }
        ByteBuffer granted = ByteBuffer.wrap(response.value());
        int[] codes = new int[granted.remaining() / 2];
        for (int i = 0; i < codes.length; i++) {
            codes[i] = granted.getShort() & 0xffff;
        }
        return codes;
    }

    /** SASL_AUTH with PLAIN ({@code NUL user NUL password}); answers the response. */
    public Response authenticate(String user, String password) throws IOException {
        return call(SASL_AUTH, NONE, bytes("PLAIN"), bytes("\0" + user + "\0" + password), 0);
    }

    /** Sets the collections manifest of the selected bucket; answers the response. */
    public Response setManifest(String json) throws IOException {
        return call(SET_COLLECTIONS_MANIFEST, NONE, NONE, bytes(json), 0);
    }

    public static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    /** Extras of set/add/replace: flags, expiry. */
    public static byte[] storeExtras(int flags, int expiry) {
        return ByteBuffer.allocate(8).putInt(flags).putInt(expiry).array();
    }

    /** Extras of incr/decr: delta, initial, expiry. */
    public static byte[] arithmeticExtras(long delta, long initial, int expiry) {
        return ByteBuffer.allocate(20).putLong(delta).putLong(initial).putInt(expiry).array();
    }

    /** One path of a MULTI_LOOKUP: command, path flags, path. */
    public static byte[] lookupSpec(int command, int flags, String path) {
        byte[] bytes = bytes(path);
        return ByteBuffer.allocate(4 + bytes.length).put((byte) command).put((byte) flags)
                .putShort((short) bytes.length).put(bytes).array();
    }

    /** One path of a MULTI_MUTATION: command, path flags, path, value. */
    public static byte[] mutationSpec(int command, int flags, String path, String value) {
        byte[] pathBytes = bytes(path);
        byte[] valueBytes = bytes(value);
        return ByteBuffer.allocate(8 + pathBytes.length + valueBytes.length).put((byte) command).put((byte) flags)
                .putShort((short) pathBytes.length).putInt(valueBytes.length).put(pathBytes).put(valueBytes).array();
    }

    /** The value of a single-path sub-document command: the path, then the command's value. */
    public static byte[] pathAndValue(String path, String value) {
        return concat(bytes(path), bytes(value));
    }

    /** Extras of a single-path sub-document command: the path's length and the path flags. */
    public static byte[] subdocExtras(String path, int flags) {
        return ByteBuffer.allocate(3).putShort((short) bytes(path).length).put((byte) flags).array();
    }

    public static byte[] concat(byte[]... parts) {
        int length = 0;
        for (byte[] part : parts) {
            length += part.length;
        }
        ByteBuffer all = ByteBuffer.allocate(length);
        for (byte[] part : parts) {
            all.put(part);
        }
        return all.array();
    }

    public static byte[] u32(int value) {
        return ByteBuffer.allocate(4).putInt(value).array();
    }

    public void send(byte[]... frames) throws IOException {
        for (byte[] frame : frames) {
            out.write(frame);
        }
        out.flush();
    }

    /** Sends one request and reads one response. */
    public Response call(int opcode, byte[] extras, byte[] key, byte[] value, long cas) throws IOException {
        send(frame(opcode, extras, key, value, cas, nextOpaque++));
        return read();
    }

    public Response set(String key, String value, int flags, int expiry) throws IOException {
        return call(SET, storeExtras(flags, expiry), bytes(key), bytes(value), 0);
    }

    public Response get(String key) throws IOException {
        return call(GET, NONE, bytes(key), NONE, 0);
    }

    /**
     * One STAT group ("" for the general one) as a map, read up to the empty terminating reply.
     *
     * @throws IllegalStateException when a reply is not a stat line of this request (opaque, status 0, CAS 0)
     */
    public Map<String, String> stats(String group) throws IOException {
        int opaque = nextOpaque++;
        send(frame(STAT, NONE, bytes(group), NONE, 0, opaque));
        Map<String, String> stats = new HashMap<>();
        for (Response line = read(); ; line = read()) {
            if (line.opaque() != opaque || line.status() != 0 || line.cas() != 0) {
                throw new IllegalStateException("not a stat line of request " + opaque + ": " + line);
            }
            if (line.key().length == 0) {
                return stats;
            }
            stats.put(line.keyText(), line.valueText());
        }
    }

    public Response read() throws IOException {
        byte[] header = new byte[24];
        in.readFully(header);
        return readAfter(header);
    }

    /** The next response, or null at the end of the server's stream; see {@link FramedReplies#readOrEnd}. */
    public Response readOrEnd() throws IOException {
        return FramedReplies.readOrEnd(in, 24, this::readAfter);
    }

    /** The rest of a response whose header has been read. */
    private Response readAfter(byte[] header) throws IOException {
        ByteBuffer h = ByteBuffer.wrap(header);
        int magic = h.get() & 0xff;
        int opcode = h.get() & 0xff;
        int keyLength = h.getShort() & 0xffff;
        int extrasLength = h.get() & 0xff;
        int dataType = h.get() & 0xff;
        int status = h.getShort() & 0xffff;
        int bodyLength = h.getInt();
        int opaque = h.getInt();
        long cas = h.getLong();
        byte[] extras = new byte[extrasLength];
        byte[] key = new byte[keyLength];
        byte[] value = new byte[bodyLength - extrasLength - keyLength];
        in.readFully(extras);
        in.readFully(key);
        in.readFully(value);
        return new Response(magic, opcode, dataType, status, opaque, cas, extras, key, value);
    }

    /** Whether the server closes the connection (end of stream) within the socket timeout, without sending more. */
    public boolean closedByServer() throws IOException {
        try {
            return in.read() == -1;
        } catch (EOFException e) {
            return true;
        } catch (SocketTimeoutException e) {
            return false;
        } catch (IOException e) {
            return true; // reset by the server
        }
    }

    @Override
    public void close() throws IOException {
        connection.close();
    }
}
