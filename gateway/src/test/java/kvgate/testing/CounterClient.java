package kvgate.testing;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/** A counter protocol client over a plain socket, showing every field of the replies. */
public final class CounterClient implements AutoCloseable {
    public static final int NOOP = 0x00, GET = 0x01, ACQUIRE = 0x02, RELEASE = 0x03, STATS = 0x10, DUMP = 0x11;

    /** One response frame. */
    public record Response(int magic, int opcode, int status, int reserved, int opaque, byte[] body) {
        public long u32(int offset) {
            return ByteBuffer.wrap(body, offset, 4).getInt() & 0xffffffffL;
        }

        public String text() {
            return new String(body, StandardCharsets.US_ASCII);
        }
    }

    private final ClientConnection connection;
    private final DataInputStream in;
    private final OutputStream out;
    private int nextOpaque = 1;

    public CounterClient(int port) throws IOException {
        this(ClientConnection.tcp(port, 5000));
    }

    /** A client on the gateway's Unix domain socket. */
    public CounterClient(Path socket) throws IOException {
        this(ClientConnection.unix(socket));
    }

    private CounterClient(ClientConnection connection) {
        this.connection = connection;
        in = new DataInputStream(connection.in());
        out = connection.out();
    }

    /** The TCP socket; null on a Unix socket. */
    public Socket socket() {
        return connection.socket();
    }

    public static byte[] frame(int magic, int opcode, int opaque, byte[] body) {
        return ByteBuffer.allocate(12 + body.length).put((byte) magic).put((byte) opcode).put((byte) 0)
                .put((byte) 0).putInt(body.length).putInt(opaque).put(body).array();
    }

    public static byte[] frame(int opcode, int opaque, byte[] body) {
        return frame(0x90, opcode, opaque, body);
    }

    public static byte[] name(String name) {
        byte[] bytes = name.getBytes(StandardCharsets.UTF_8);
        return ByteBuffer.allocate(2 + bytes.length).putShort((short) bytes.length).put(bytes).array();
    }

    public static byte[] acquireBody(long resources, long maximum, String name) {
        byte[] n = name(name);
        return ByteBuffer.allocate(8 + n.length).putInt((int) resources).putInt((int) maximum).put(n).array();
    }

    public static byte[] releaseBody(long resources, String name) {
        byte[] n = name(name);
        return ByteBuffer.allocate(4 + n.length).putInt((int) resources).put(n).array();
    }

    public void send(byte[]... frames) throws IOException {
        for (byte[] frame : frames) {
            out.write(frame);
        }
        out.flush();
    }

    public Response call(int opcode, byte[] body) throws IOException {
        send(frame(opcode, nextOpaque++, body));
        return read();
    }

    public Response acquire(String name, long resources, long maximum) throws IOException {
        return call(ACQUIRE, acquireBody(resources, maximum, name));
    }

    public Response release(String name, long resources) throws IOException {
        return call(RELEASE, releaseBody(resources, name));
    }

    public Response get(String name) throws IOException {
        return call(GET, name(name));
    }

    public Response read() throws IOException {
        byte[] header = new byte[12];
        in.readFully(header);
        return readAfter(header);
    }

    /** The next response, or null at the end of the server's stream; see {@link FramedReplies#readOrEnd}. */
    public Response readOrEnd() throws IOException {
        return FramedReplies.readOrEnd(in, 12, this::readAfter);
    }

    /** The rest of a response whose header has been read. */
    private Response readAfter(byte[] header) throws IOException {
        ByteBuffer h = ByteBuffer.wrap(header);
        int magic = h.get() & 0xff;
        int opcode = h.get() & 0xff;
        int status = h.get() & 0xff;
        int reserved = h.get() & 0xff;
        int length = h.getInt();
        int opaque = h.getInt();
        byte[] body = new byte[length];
        in.readFully(body);
        return new Response(magic, opcode, status, reserved, opaque, body);
    }

    /** Whether the server closes the connection within the socket timeout. */
    public boolean closedByServer() throws IOException {
        try {
            return in.read() == -1;
        } catch (SocketTimeoutException e) {
            return false;
        } catch (IOException e) {
            return true;
        }
    }

    /**
     * Drops the connection with a reset, as a killed client would, instead of a clean close; a Unix socket has no
     * reset and is closed.
     */
    public void abort() throws IOException {
        if (connection.socket() != null) {
            connection.socket().setSoLinger(true, 0);
        }
        connection.close();
    }

    @Override
    public void close() throws IOException {
        connection.close();
    }
}
