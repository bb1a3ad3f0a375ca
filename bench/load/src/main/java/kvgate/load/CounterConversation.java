package kvgate.load;

import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;

/**
 * The counter protocol: Acquire of one resource of a random name (of {@code keys} names), then Release of it on
 * the same connection, over and over; pipelined pairs stay in order, so every Release follows its own Acquire.
 * The maximum is 2^32 - 1, so acquisitions succeed however many connections share a name. Each Acquire and each
 * Release is one operation.
 */
final class CounterConversation implements Conversation {
    private static final int ACQUIRE = 0x02;
    private static final int RELEASE = 0x03;
    private static final int HEADER = 12;
    private static final long MAX_BODY = 64 << 20;

    private final Workload workload;
    private final SplittableRandom random;
    /** The name the next request releases, or -1 when the next one acquires. */
    private long held = -1;
    private String problem;

    CounterConversation(Workload workload, int connection) {
        this.workload = workload;
        this.random = workload.random(connection);
    }

    @Override
    public int writeFill(ByteBuf out, long key, int tag) {
        throw new IllegalStateException("counters are not filled");
    }

    @Override
    public int writeNext(ByteBuf out, int tag) {
        int nameLength = workload.keys().size();
        if (held < 0) {
            held = workload.randomKey(random);
            header(out, ACQUIRE, 8 + 2 + nameLength, tag);
            out.writeInt(1).writeInt(-1).writeShort(nameLength); // 1 resource, maximum 2^32 - 1
            workload.keys().write(out, held);
            return ACQUIRE;
        }
        header(out, RELEASE, 4 + 2 + nameLength, tag);
        out.writeInt(1).writeShort(nameLength);
        workload.keys().write(out, held);
        held = -1;
        return RELEASE;
    }

    private static void header(ByteBuf out, int opcode, int bodyLength, int tag) {
        out.writeByte(0x90).writeByte(opcode).writeShort(0).writeInt(bodyLength).writeInt(tag);
    }

    @Override
    public Outcome read(ByteBuf in, int kind, int tag) {
        if (in.readableBytes() < HEADER) {
            return null;
        }
        int at = in.readerIndex();
        long bodyLength = in.getUnsignedInt(at + 4);
        int magic = in.getUnsignedByte(at);
        if (magic != 0x91 || bodyLength > MAX_BODY) {
            problem = String.format("not a reply header: magic 0x%02x, body length %d", magic, bodyLength);
            return Outcome.BROKEN;
        }
        if (in.readableBytes() < HEADER + bodyLength) {
            return null;
        }
        int opcode = in.getUnsignedByte(at + 1);
        int status = in.getUnsignedByte(at + 2);
        int opaque = in.getInt(at + 8);
        in.skipBytes(HEADER + (int) bodyLength);
        if (opcode != kind || opaque != tag) {
            problem = String.format("reply opcode 0x%02x opaque %d to opcode 0x%02x opaque %d", opcode, opaque,
                    kind, tag);
            return Outcome.BROKEN;
        }
        if (status != 0) {
            problem = String.format("status 0x%02x to opcode 0x%02x: %s", status, kind,
                    in.toString(at + HEADER, (int) bodyLength, StandardCharsets.UTF_8));
            return Outcome.ERROR;
        }
        if (kind == ACQUIRE && (bodyLength != 4 || in.getInt(at + HEADER) != 1)) {
            problem = "an acquisition of 1 answered with " + bodyLength + " bytes";
            return Outcome.ERROR;
        }
        return Outcome.SUCCESS;
    }

    @Override
    public String problem() {
        return problem;
    }
}
