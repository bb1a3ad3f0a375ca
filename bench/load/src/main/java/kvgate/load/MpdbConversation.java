package kvgate.load;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.SplittableRandom;
import org.msgpack.core.MessageBufferPacker;
import org.msgpack.core.MessageFormat;
import org.msgpack.core.MessagePack;
import org.msgpack.core.MessagePackException;
import org.msgpack.core.MessageUnpacker;
import org.msgpack.value.ValueType;

/**
 * One MPDB client's requests and the judging of their replies: INSERT of one key (a write) and GET of one key (a
 * read), in the global collection, under the client's own node id.
 */
final class MpdbConversation {
    static final int INSERT = 0;
    static final int GET = 1;
    private static final byte[] GLOBAL = "global.".getBytes(StandardCharsets.US_ASCII);

    /** A reply as read: its echo, its error text, and the last pair of its result (value null when nil). */
    record Reply(long echo, String error, int results, byte[] name, byte[] value) {
    }

    private final Workload workload;
    private final SplittableRandom random;
    private final long nodeid;
    private final MessageBufferPacker packer = MessagePack.newDefaultBufferPacker();
    private String problem;
    private long lastKey;

    MpdbConversation(Workload workload, int client) {
        this.workload = workload;
        this.random = workload.random(client);
        this.nodeid = client + 1;
    }

    /** Writes an INSERT of {@code key}; returns its kind. */
    int writeFill(ByteBuf out, long key, long echo) {
        return write(out, INSERT, key, echo);
    }

    /** Picks the next request of the mix; its key is {@link #lastKey()}. Returns its kind. */
    int writeNext(ByteBuf out, long echo) {
        int kind = workload.nextIsRead(random) ? GET : INSERT;
        return write(out, kind, workload.randomKey(random), echo);
    }

    long lastKey() {
        return lastKey;
    }

    private int write(ByteBuf out, int kind, long key, long echo) {
        lastKey = key;
        byte[] name = workload.keys().bytes(key);
        try {
            packer.clear();
            packer.packMapHeader(4);
            packer.packString("oper").packString(kind == GET ? "GET" : "INSERT");
            packer.packString("nodeid").packLong(nodeid);
            packer.packString("echo").packLong(echo);
            if (kind == GET) {
                packer.packString("keys").packArrayHeader(1);
                packer.packRawStringHeader(name.length).writePayload(name);
            } else {
                byte[] value = workload.value();
                packer.packString("data").packMapHeader(1);
                packer.packRawStringHeader(name.length).writePayload(name);
                packer.packRawStringHeader(value.length).writePayload(value);
            }
            out.writeBytes(packer.toByteArray());
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        return kind;
    }

    /** Reads a reply datagram; null when it is not a well-formed MPDB reply (see {@link #problem()}). */
    Reply parse(ByteBuf datagram) {
        // Read from a heap copy: msgpack-core reads direct buffers through JDK internals Java 17 does not open.
        try (MessageUnpacker unpacker = MessagePack.newDefaultUnpacker(ByteBufUtil.getBytes(datagram))) {
            int fields = unpacker.unpackMapHeader();
            long echo = -1;
            String error = null;
            int results = 0;
            byte[] name = null;
            byte[] value = null;
            for (int i = 0; i < fields; i++) {
                String field = unpacker.unpackString();
                switch (field) {
                    case "echo" -> echo = unpacker.unpackLong();
                    case "error" -> error = unpacker.unpackString();
                    case "result" -> {
                        if (unpacker.getNextFormat() == MessageFormat.NIL) {
                            unpacker.unpackNil();
                            break;
                        }
                        results = unpacker.unpackMapHeader();
                        for (int j = 0; j < results; j++) {
                            name = unpacker.readPayload(unpacker.unpackRawStringHeader());
                            value = null;
                            if (unpacker.getNextFormat().getValueType() == ValueType.STRING) {
                                value = unpacker.readPayload(unpacker.unpackRawStringHeader());
                            } else {
                                unpacker.skipValue();
                            }
                        }
                    }
                    default -> unpacker.skipValue();
                }
            }
            if (echo < 0 || error == null) {
                problem = "a reply without echo or error";
                return null;
            }
            return new Reply(echo, error, results, name, value);
        } catch (IOException | MessagePackException e) {
            problem = "a reply that is not MsgPack: " + e.getMessage();
            return null;
        }
    }

    /** Judges the reply to a request of {@code kind} for {@code key}. */
    Outcome judge(Reply reply, int kind, long key) {
        if (!reply.error().isEmpty()) {
            problem = "error " + reply.error();
            return Outcome.ERROR;
        }
        if (kind == INSERT) {
            return Outcome.SUCCESS;
        }
        if (reply.results() != 1) {
            problem = "a GET of one key answered " + reply.results() + " pairs";
            return Outcome.ERROR;
        }
        byte[] expected = workload.keys().bytes(key);
        if (reply.name().length != GLOBAL.length + expected.length
                || !Arrays.equals(reply.name(), 0, GLOBAL.length, GLOBAL, 0, GLOBAL.length)
                || !Arrays.equals(reply.name(), GLOBAL.length, reply.name().length, expected, 0, expected.length)) {
            problem = "a GET answered another key: " + new String(reply.name(), StandardCharsets.UTF_8);
            return Outcome.ERROR;
        }
        if (reply.value() == null) {
            return Outcome.MISS;
        }
        if (!workload.isValue(reply.value())) {
            problem = "a GET answered another value";
            return Outcome.ERROR;
        }
        return Outcome.HIT;
    }

    String problem() {
        return problem;
    }
}
