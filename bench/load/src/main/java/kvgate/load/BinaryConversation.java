package kvgate.load;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;

/**
 * memcached binary Get and Set, optionally with Couchbase collections: then the connection first asks HELLO for
 * collections, connection 0 sets a manifest with {@code collections} collections (ids 8 and up, in the default
 * scope), and every key carries the LEB128 id of its collection (key number modulo the collections), so a get
 * finds what the fill stored. Every reply is checked: magic, opcode, opaque, status, and for a hit the value.
 */
final class BinaryConversation implements Conversation {
    private static final int GET = 0x00;
    private static final int SET = 0x01;
    private static final int HELLO = 0x1f;
    private static final int SET_MANIFEST = 0xb9;
    private static final int FEATURE_COLLECTIONS = 0x12;
    private static final int HEADER = 24;
    /** Longer replies than this are taken for garbage rather than awaited. */
    private static final long MAX_BODY = 64 << 20;
    /** The first collection id a manifest may give (0 is the default collection, 1 to 7 are reserved). */
    private static final int FIRST_COLLECTION = 8;

    private final Workload workload;
    /** The value a get must read back, as a buffer, for Netty's comparison of eight bytes a step. */
    private final ByteBuf expectedValue;
    private final SplittableRandom random;
    private final boolean collections;
    private final boolean setsManifest;
    private String problem;

    BinaryConversation(Workload workload, int connection, boolean collections) {
        this.workload = workload;
        this.expectedValue = Unpooled.wrappedBuffer(workload.value());
        this.random = workload.random(connection);
        this.collections = collections;
        this.setsManifest = collections && connection == 0;
    }

    /** The manifest the collections protocol sets: the default scope, its default collection and n more. */
    static String manifest(int collections) {
        StringBuilder json = new StringBuilder(
                "{\"uid\":\"1\",\"scopes\":[{\"name\":\"_default\",\"uid\":\"0\",\"collections\":["
                        + "{\"name\":\"_default\",\"uid\":\"0\"}");
        for (int i = 0; i < collections; i++) {
            json.append(",{\"name\":\"load").append(i).append("\",\"uid\":\"")
                    .append(Integer.toHexString(FIRST_COLLECTION + i)).append("\"}");
        }
        return json.append("]}]}").toString();
    }

    @Override
    public int preambleSteps() {
        return collections ? setsManifest ? 2 : 1 : 0;
    }

    @Override
    public int writePreamble(ByteBuf out, int step, int tag) {
        if (step == 0) {
            byte[] agent = "kvgate-load".getBytes(StandardCharsets.US_ASCII);
            header(out, HELLO, agent.length, 0, 2, tag);
            out.writeBytes(agent).writeShort(FEATURE_COLLECTIONS);
            return HELLO;
        }
        byte[] manifest = manifest(workload.options().collections()).getBytes(StandardCharsets.UTF_8);
        header(out, SET_MANIFEST, 0, 0, manifest.length, tag);
        out.writeBytes(manifest);
        return SET_MANIFEST;
    }

    @Override
    public int writeFill(ByteBuf out, long key, int tag) {
        return write(out, SET, key, tag);
    }

    @Override
    public int writeNext(ByteBuf out, int tag) {
        return write(out, workload.nextIsRead(random) ? GET : SET, workload.randomKey(random), tag);
    }

    private int write(ByteBuf out, int opcode, long key, int tag) {
        int keyLength = workload.keys().size() + (collections ? 1 : 0);
        byte[] value = workload.value();
        if (opcode == GET) {
            header(out, GET, keyLength, 0, 0, tag);
            writeKey(out, key);
        } else {
            header(out, SET, keyLength, 8, value.length, tag);
            out.writeInt(0).writeInt(0); // flags, expiry
            writeKey(out, key);
            out.writeBytes(value);
        }
        return opcode;
    }

    private void writeKey(ByteBuf out, long key) {
        if (collections) {
            // Ids below 128 are one LEB128 byte.
            out.writeByte(FIRST_COLLECTION + (int) (key % workload.options().collections()));
        }
        workload.keys().write(out, key);
    }

    private static void header(ByteBuf out, int opcode, int keyLength, int extrasLength, int valueLength, int tag) {
        out.writeByte(0x80).writeByte(opcode).writeShort(keyLength).writeByte(extrasLength).writeByte(0)
                .writeShort(0).writeInt(extrasLength + keyLength + valueLength).writeInt(tag).writeLong(0);
    }

    @Override
    public Outcome read(ByteBuf in, int kind, int tag) {
        if (in.readableBytes() < HEADER) {
            return null;
        }
        int at = in.readerIndex();
        long bodyLength = in.getUnsignedInt(at + 8);
        if (in.getUnsignedByte(at) != 0x81 || bodyLength > MAX_BODY) {
            problem = String.format("not a reply header: magic 0x%02x, body length %d", in.getUnsignedByte(at),
                    bodyLength);
            return Outcome.BROKEN;
        }
        if (in.readableBytes() < HEADER + bodyLength) {
            return null;
        }
        int magic = in.getUnsignedByte(at);
        int opcode = in.getUnsignedByte(at + 1);
        int keyLength = in.getUnsignedShort(at + 2);
        int extrasLength = in.getUnsignedByte(at + 4);
        int status = in.getUnsignedShort(at + 6);
        int opaque = in.getInt(at + 12);
        in.skipBytes(HEADER + (int) bodyLength);
        if (magic != 0x81 || opcode != kind || opaque != tag) {
            problem = String.format("reply magic 0x%02x opcode 0x%02x opaque %d to opcode 0x%02x opaque %d",
                    magic, opcode, opaque, kind, tag);
            return Outcome.BROKEN;
        }
        if (kind == GET && status == 0x0001) {
            return Outcome.MISS;
        }
        if (status != 0) {
            problem = String.format("status 0x%04x to opcode 0x%02x: %s", status, kind,
                    in.toString(at + HEADER, (int) bodyLength, StandardCharsets.UTF_8));
            return Outcome.ERROR;
        }
        int valueAt = at + HEADER + extrasLength + keyLength;
        int valueLength = (int) bodyLength - extrasLength - keyLength;
        if (kind == GET) {
            if (valueLength != expectedValue.readableBytes()
                    || !ByteBufUtil.equals(in, valueAt, expectedValue, 0, valueLength)) {
                problem = "a get answered another value (" + valueLength + " bytes)";
                return Outcome.ERROR;
            }
            return Outcome.HIT;
        }
        if (kind == HELLO && !grants(in, valueAt, valueLength, FEATURE_COLLECTIONS)) {
            problem = "HELLO did not grant collections";
            return Outcome.ERROR;
        }
        return Outcome.SUCCESS;
    }

    private static boolean grants(ByteBuf in, int at, int length, int feature) {
        for (int i = 0; i + 1 < length; i += 2) {
            if (in.getUnsignedShort(at + i) == feature) {
                return true;
            }
        }
        return false;
    }

    @Override
    public String problem() {
        return problem;
    }
}
