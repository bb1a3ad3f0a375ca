package kvgate.mpdb;

import java.io.IOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import kvgate.mpdb.MpdbDatagram.Invalid;
import kvgate.mpdb.MpdbDatagram.Oper;
import kvgate.mpdb.MpdbDatagram.Request;
import kvgate.mpdb.MpdbDatagram.Unreadable;
import org.msgpack.core.MessageBufferPacker;
import org.msgpack.core.MessageFormat;
import org.msgpack.core.MessagePack;
import org.msgpack.core.MessagePackException;
import org.msgpack.core.MessagePacker;
import org.msgpack.core.MessageUnpacker;
import org.msgpack.value.ValueType;

/**
 * Request datagrams to {@link MpdbDatagram}s and {@link MpdbReply}s to datagrams. The decoder reads every field it
 * can before judging, so that a request it cannot carry out still has its echo tag read and gets an error reply;
 * only a datagram with no echo tag to be read is {@link Unreadable}. Lengths declared inside the datagram are
 * checked against the bytes really there before anything is allocated.
 */
public final class MpdbCodec {
    private MpdbCodec() {
    }

    /** A length or structure that runs past the end of the datagram. */
    private static final class Truncated extends RuntimeException {
        Truncated() {
            super(null, null, false, false);
        }
    }

    /** What the fields of one datagram were, each read or with the problem found in it. */
    private static final class Fields {
        Long echo;
        Long nodeid;
        String nodeidProblem;
        String oper;
        String operProblem;
        Map<String, MpdbValue> data;
        String dataProblem;
        List<String> keys;
        String keysProblem;
        String collection;
        String collectionProblem;
        String structureProblem;
    }

    /**
     * msgpack-core's defaults allocate 8 KiB buffers for every packer and string decoder; a datagram and its reply
     * are usually a few hundred bytes, and the buffers grow when one is not.
     */
    private static final MessagePack.PackerConfig PACKER = new MessagePack.PackerConfig().withBufferSize(512);
    private static final MessagePack.UnpackerConfig UNPACKER = new MessagePack.UnpackerConfig()
            .withStringDecoderBufferSize(512);

    /**
     * Reads one request datagram.
     *
     * @param bytes the datagram, or its first {@code maxDatagram + 1} bytes when {@code oversized}
     * @param oversized whether the datagram was longer than {@code maxDatagram}: it is refused, with an error reply
     *     when its echo tag comes early enough to be read
     */
    public static MpdbDatagram decode(byte[] bytes, boolean oversized, int maxDatagram) {
        Fields fields = new Fields();
        try (MessageUnpacker unpacker = UNPACKER.newUnpacker(bytes)) {
            if (!unpacker.hasNext()) {
                return new Unreadable(Unreadable.NOT_MSGPACK);
            }
            MessageFormat format = unpacker.getNextFormat();
            if (format == MessageFormat.NEVER_USED) {
                return new Unreadable(Unreadable.NOT_MSGPACK);
            }
            if (format.getValueType() != ValueType.MAP) {
                return new Unreadable(oversized ? Unreadable.OVERSIZED : Unreadable.NOT_A_MAP);
            }
            readFields(unpacker, bytes.length, fields);
            if (unpacker.hasNext()) {
                fields.structureProblem = "the datagram holds more than one MsgPack value";
            }
        } catch (Truncated | MessagePackException | IOException e) {
            if (!oversized) {
                fields.structureProblem = "the datagram is not a well-formed MsgPack map";
            }
        }
        if (fields.echo == null) {
            return new Unreadable(oversized ? Unreadable.OVERSIZED
                    : fields.structureProblem != null ? Unreadable.NOT_MSGPACK : Unreadable.NO_ECHO);
        }
        long echo = fields.echo;
        Long nodeid = fields.nodeid;
        if (oversized) {
            return new Invalid(echo, nodeid, "the datagram is longer than " + maxDatagram + " bytes");
        }
        if (fields.structureProblem != null) {
            return new Invalid(echo, nodeid, fields.structureProblem);
        }
        if (echo < 1) {
            return new Invalid(echo, nodeid, "\"echo\" must be 1 or more");
        }
        if (fields.operProblem != null) {
            return new Invalid(echo, nodeid, fields.operProblem);
        }
        if (fields.oper == null) {
            return new Invalid(echo, nodeid, "missing \"oper\"");
        }
        Oper oper;
        try {
            oper = Oper.valueOf(fields.oper);
        } catch (IllegalArgumentException e) {
            return new Invalid(echo, nodeid, "unknown oper \"" + fields.oper + "\"; expected one of PERSIST, "
                    + "GETPERSIST, INSERT, GET, GETBUCKET");
        }
        String problem = switch (oper) {
            case PERSIST -> first(nodeidProblem(fields), dataProblem(fields));
            case GETPERSIST -> first(nodeidProblem(fields), keysProblem(fields));
            case INSERT -> dataProblem(fields);
            case GET -> keysProblem(fields);
            case GETBUCKET -> fields.collectionProblem != null ? fields.collectionProblem
                    : fields.collection == null ? "missing \"collection\"" : null;
        };
        if (problem != null) {
            return new Invalid(echo, nodeid, problem);
        }
        return new Request(oper, echo, nodeid, fields.data, fields.keys, fields.collection);
    }

    private static String nodeidProblem(Fields fields) {
        return fields.nodeidProblem != null ? fields.nodeidProblem
                : fields.nodeid == null ? "missing \"nodeid\"" : null;
    }

    private static String dataProblem(Fields fields) {
        return fields.dataProblem != null ? fields.dataProblem : fields.data == null ? "missing \"data\"" : null;
    }

    private static String keysProblem(Fields fields) {
        return fields.keysProblem != null ? fields.keysProblem : fields.keys == null ? "missing \"keys\"" : null;
    }

    private static String first(String a, String b) {
        return a != null ? a : b;
    }

    private static void readFields(MessageUnpacker unpacker, int total, Fields fields) throws IOException {
        int size = unpacker.unpackMapHeader();
        for (int i = 0; i < size; i++) {
            String name = text(unpacker, total);
            if (name == null) {
                unpacker.skipValue();
                fields.structureProblem = "a field name of the request map is not a string";
                continue;
            }
            switch (name) {
                case "echo" -> fields.echo = unsigned(unpacker, 63);
                case "nodeid" -> {
                    fields.nodeid = unsigned(unpacker, 64);
                    fields.nodeidProblem = fields.nodeid == null ? "\"nodeid\" must be an unsigned integer" : null;
                }
                case "oper" -> {
                    fields.oper = text(unpacker, total);
                    fields.operProblem = fields.oper == null ? "\"oper\" must be a string" : null;
                }
                case "data" -> readData(unpacker, total, fields);
                case "keys" -> readKeys(unpacker, total, fields);
                case "collection" -> {
                    fields.collection = text(unpacker, total);
                    fields.collectionProblem = fields.collection == null ? "\"collection\" must be a string" : null;
                }
                default -> unpacker.skipValue();
            }
        }
    }

    /**
     * A non-negative integer of at most {@code bits} bits (63 for echo tags, 64 for node ids, kept as an unsigned
     * long), or null (the value skipped) for anything else.
     */
    private static Long unsigned(MessageUnpacker unpacker, int bits) throws IOException {
        MessageFormat format = unpacker.getNextFormat();
        if (format.getValueType() != ValueType.INTEGER) {
            unpacker.skipValue();
            return null;
        }
        BigInteger value = unpacker.unpackBigInteger();
        return value.signum() < 0 || value.bitLength() > bits ? null : value.longValue();
    }

    /** A UTF-8 string (str, or bin as older packers write strings), or null (the value skipped) for anything else. */
    private static String text(MessageUnpacker unpacker, int total) throws IOException {
        byte[] bytes = utf8Bytes(unpacker, total);
        return bytes == null ? null : new String(bytes, StandardCharsets.UTF_8);
    }

    private static byte[] utf8Bytes(MessageUnpacker unpacker, int total) throws IOException {
        ValueType type = unpacker.getNextFormat().getValueType();
        if (type != ValueType.STRING && type != ValueType.BINARY) {
            unpacker.skipValue();
            return null;
        }
        int length = type == ValueType.STRING ? unpacker.unpackRawStringHeader() : unpacker.unpackBinaryHeader();
        byte[] bytes = payload(unpacker, length, total);
        return MpdbValue.utf8(bytes) ? bytes : null;
    }

    private static byte[] payload(MessageUnpacker unpacker, int length, int total) throws IOException {
        if (length < 0 || length > total - unpacker.getTotalReadBytes()) {
            throw new Truncated();
        }
        return unpacker.readPayload(length);
    }

    private static void readData(MessageUnpacker unpacker, int total, Fields fields) throws IOException {
        fields.data = null;
        fields.dataProblem = null;
        if (unpacker.getNextFormat().getValueType() != ValueType.MAP) {
            unpacker.skipValue();
            fields.dataProblem = "\"data\" must be a map";
            return;
        }
        int size = unpacker.unpackMapHeader();
        Map<String, MpdbValue> data = new LinkedHashMap<>();
        String problem = null;
        for (int i = 0; i < size; i++) {
            String key = text(unpacker, total);
            if (key == null) {
                unpacker.skipValue();
                problem = first(problem, "a key of \"data\" is not a UTF-8 string");
                continue;
            }
            MessageFormat format = unpacker.getNextFormat();
            switch (format.getValueType()) {
                case INTEGER -> data.put(key, MpdbValue.integer(IntegerFormat.of(format).code,
                        unpacker.unpackBigInteger().toString()));
                case STRING -> {
                    byte[] text = payload(unpacker, unpacker.unpackRawStringHeader(), total);
                    if (MpdbValue.utf8(text)) {
                        data.put(key, MpdbValue.string(text));
                    } else {
                        // It would come back as binary, which MPDB does not store either.
                        problem = first(problem, "the value of \"" + key + "\" is a string that is not UTF-8");
                    }
                }
                default -> {
                    unpacker.skipValue();
                    problem = first(problem, "the value of \"" + key + "\" is "
                            + article(format.getValueType()) + "; MPDB stores strings and integers only");
                }
            }
        }
        if (problem != null) {
            fields.dataProblem = problem;
        } else {
            fields.data = data;
        }
    }

    private static String article(ValueType type) {
        String name = switch (type) {
            case NIL -> "nil";
            case BOOLEAN -> "a boolean";
            case FLOAT -> "a float";
            case BINARY -> "binary";
            case ARRAY -> "an array";
            case MAP -> "a map";
            case EXTENSION -> "an extension type";
            default -> type.name().toLowerCase(Locale.ROOT);
        };
        return name;
    }

    private static void readKeys(MessageUnpacker unpacker, int total, Fields fields) throws IOException {
        fields.keys = null;
        fields.keysProblem = null;
        if (unpacker.getNextFormat().getValueType() != ValueType.ARRAY) {
            unpacker.skipValue();
            fields.keysProblem = "\"keys\" must be an array of strings";
            return;
        }
        int size = unpacker.unpackArrayHeader();
        Set<String> keys = new LinkedHashSet<>();
        boolean bad = false;
        for (int i = 0; i < size; i++) {
            String key = text(unpacker, total);
            if (key == null) {
                bad = true;
            } else {
                keys.add(key);
            }
        }
        if (bad) {
            fields.keysProblem = "\"keys\" must be an array of strings";
        } else {
            fields.keys = new ArrayList<>(keys);
        }
    }

    /** The datagram of a reply. */
    public static byte[] encode(MpdbReply reply) {
        try (MessageBufferPacker packer = PACKER.newBufferPacker()) {
            packer.packMapHeader(5);
            packer.packString("oper").packString("RESPONSE");
            packer.packString("nodeid");
            if (reply.nodeid() == null) {
                packer.packNil();
            } else {
                packUnsigned(packer, reply.nodeid());
            }
            packer.packString("echo");
            packUnsigned(packer, reply.echo());
            packer.packString("result");
            if (reply.result() == null) {
                packer.packNil();
            } else {
                packer.packMapHeader(reply.result().size());
                for (Map.Entry<String, MpdbValue> entry : reply.result().entrySet()) {
                    packer.packString(entry.getKey());
                    packValue(packer, entry.getValue());
                }
            }
            packer.packString("error").packString(reply.error());
            return packer.toByteArray();
        } catch (IOException e) {
            throw new IllegalStateException("a buffer packer cannot fail", e);
        }
    }

    /** An unsigned 64-bit value held in a long: above 2^63 it must not go out as a negative int64. */
    private static void packUnsigned(MessagePacker packer, long value) throws IOException {
        if (value >= 0) {
            packer.packLong(value);
        } else {
            packer.packBigInteger(new BigInteger(Long.toUnsignedString(value)));
        }
    }

    private static void packValue(MessagePacker packer, MpdbValue value) throws IOException {
        if (value == null) {
            packer.packNil();
            return;
        }
        switch (value.type()) {
            case STRING -> packer.packRawStringHeader(value.bytes().length).writePayload(value.bytes());
            case BINARY -> packer.packBinaryHeader(value.bytes().length).writePayload(value.bytes());
            case INTEGER -> IntegerFormat.write(packer, value.format(), value.number());
        }
    }
}
