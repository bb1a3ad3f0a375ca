package kvgate.backend.memcached;

import io.netty.buffer.ByteBuf;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import kvgate.spi.PipelinedConnection;

/**
 * One request to a memcached server and the {@link Answer} its reply goes to. A quiet request may get no reply: its
 * answer then gets null once a later reply shows the server passed it (a quiet get's miss, a quiet store's success).
 */
final class ServerRequest extends PipelinedConnection.Request {
    /**
     * Where a request's reply goes, on the connection's event loop, once. The backend's operations make their
     * results here directly, with no future of the reply in between: that would be one more stage for every
     * request to complete on the way back to the client.
     */
    interface Answer {
        /** The server's reply, or null for a quiet request it passed over. */
        void replied(ServerReply reply);

        /** No reply will come: {@link ReplyLost} when the request was written, else {@link ServerUnavailable}. */
        void failed(Exception error);
    }

    /** An answer kept as it came, for requests that want the reply itself: probes, stats. */
    static final class ReplyFuture extends CompletableFuture<ServerReply> implements Answer {
        @Override
        public void replied(ServerReply reply) {
            complete(reply);
        }

        @Override
        public void failed(Exception error) {
            completeExceptionally(error);
        }
    }

    static final int GET = 0x00;
    static final int SET = 0x01;
    static final int ADD = 0x02;
    static final int REPLACE = 0x03;
    static final int DELETE = 0x04;
    static final int INCREMENT = 0x05;
    static final int DECREMENT = 0x06;
    static final int FLUSH = 0x08;
    static final int GETQ = 0x09;
    static final int NOOP = 0x0a;
    static final int APPEND = 0x0e;
    static final int PREPEND = 0x0f;
    static final int STAT = 0x10;
    static final int GAT = 0x1d;
    static final int SASL_LIST_MECHS = 0x20;
    static final int SASL_AUTH = 0x21;
    static final int SASL_STEP = 0x22;
    private static final byte[] NONE = new byte[0];

    /** Final but for {@link #answerMisses}, before the request is sent. */
    int opcode;
    final byte[] extras;
    final byte[] key;
    final byte[] value;
    final long cas;
    final Answer answer;
    /** A stat request's replies before the terminator: one per stat, all with the request's opaque. */
    final List<ServerReply> parts;
    int opaque;

    ServerRequest(int opcode, byte[] extras, byte[] key, byte[] value, long cas, Answer answer) {
        this.opcode = opcode;
        this.extras = extras == null ? NONE : extras;
        this.key = key == null ? NONE : key;
        this.value = value == null ? NONE : value;
        this.cas = cas;
        this.answer = answer;
        this.parts = opcode == STAT ? new ArrayList<>() : null;
    }

    static ServerRequest noop(Answer answer) {
        return new ServerRequest(NOOP, null, null, null, 0, answer);
    }

    /** Whether this is a step of the authentication a connection starts with, not a client's request. */
    boolean authentication() {
        return opcode == SASL_LIST_MECHS || opcode == SASL_AUTH || opcode == SASL_STEP;
    }

    boolean quiet() {
        return opcode == GETQ;
    }

    /** Makes a quiet get a get that answers a miss too; before it is sent. */
    void answerMisses() {
        if (opcode == GETQ) {
            opcode = GET;
        }
    }

    /** Whether a request with this opcode changes data, so that a lost reply leaves its outcome unknown. */
    static boolean mutating(int opcode) {
        return switch (opcode) {
            case GET, GETQ, NOOP, STAT, SASL_LIST_MECHS, SASL_AUTH, SASL_STEP -> false;
            default -> true;
        };
    }

    @Override
    public int encodedLength() {
        return 24 + extras.length + key.length + value.length;
    }

    /** Writes the request, with its opaque, at the end of {@code out}. */
    @Override
    public void encode(ByteBuf out) {
        int body = extras.length + key.length + value.length;
        out.writeByte(0x80)
                .writeByte(opcode)
                .writeShort(key.length)
                .writeByte(extras.length)
                .writeByte(0)
                .writeShort(0)
                .writeInt(body)
                .writeInt(opaque)
                .writeLong(cas)
                .writeBytes(extras)
                .writeBytes(key)
                .writeBytes(value);
    }
}
