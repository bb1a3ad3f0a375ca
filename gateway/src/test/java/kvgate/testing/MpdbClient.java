package kvgate.testing;

import java.io.IOException;
import java.math.BigInteger;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.msgpack.core.MessageBufferPacker;
import org.msgpack.core.MessageFormat;
import org.msgpack.core.MessagePack;
import org.msgpack.core.MessagePacker;
import org.msgpack.core.MessageUnpacker;

/**
 * An MPDB client on a real UDP socket, written from the protocol document: requests are MsgPack maps built here
 * byte by byte where the format matters, replies are read with the exact MsgPack format of every value kept, so a
 * test can check that a uint8 came back as a uint8.
 */
public final class MpdbClient implements AutoCloseable {
    private final DatagramSocket socket;
    private final InetSocketAddress server;

    /** A value of a reply with the format it travelled in: String, BigInteger, byte[] (bin) or null (nil). */
    public record Typed(MessageFormat format, Object value) {
    }

    public record Reply(String oper, Object nodeid, long echo, Map<String, Typed> result, String error) {
    }

    /** A value written into a request exactly as these bytes (an integer in a chosen format, a float, ...). */
    public record Raw(byte[] bytes) {
    }

    public MpdbClient(InetAddress server, int port) throws IOException {
        this(server instanceof java.net.Inet6Address ? InetAddress.getByName("::1")
                : InetAddress.getByName("127.0.0.1"), server, port);
    }

    /**
     * A client on a free port of {@code local}. The gateway knows a client by its address, so a test that must
     * never meet the state of an earlier client (a port the system hands out again) gives each its own loopback
     * address, 127.x.y.z.
     */
    public MpdbClient(InetAddress local, InetAddress server, int port) throws IOException {
        this.socket = new DatagramSocket(new InetSocketAddress(local, 0));
        this.server = new InetSocketAddress(server, port);
        socket.setReceiveBufferSize(1 << 20);
    }

    public MpdbClient(int port) throws IOException {
        this(InetAddress.getByName("127.0.0.1"), port);
    }

    public InetSocketAddress localAddress() {
        return (InetSocketAddress) socket.getLocalSocketAddress();
    }

    public void send(byte[] datagram) throws IOException {
        socket.send(new DatagramPacket(datagram, datagram.length, server));
    }

    /** The next reply, or null when none comes within {@code timeoutMillis}. */
    public Reply receive(int timeoutMillis) throws IOException {
        byte[] buffer = new byte[65536];
        DatagramPacket packet = new DatagramPacket(buffer, buffer.length);
        socket.setSoTimeout(timeoutMillis);
        try {
            socket.receive(packet);
        } catch (SocketTimeoutException e) {
            return null;
        }
        byte[] datagram = new byte[packet.getLength()];
        System.arraycopy(buffer, 0, datagram, 0, datagram.length);
        return parse(datagram);
    }

    /** The next reply, which must come within five seconds. */
    public Reply receive() throws IOException {
        Reply reply = receive(5000);
        if (reply == null) {
            throw new AssertionError("no reply within 5 s");
        }
        return reply;
    }

    /** Sends a request and returns the reply to it. */
    public Reply call(byte[] request) throws IOException {
        send(request);
        return receive();
    }

    // --- requests ---

    /** A request map: the fields in order, values being String, Long/Integer, BigInteger, Map, List, Raw or null. */
    public static byte[] request(Object... fieldsAndValues) {
        Map<String, Object> fields = new LinkedHashMap<>();
        for (int i = 0; i < fieldsAndValues.length; i += 2) {
            fields.put((String) fieldsAndValues[i], fieldsAndValues[i + 1]);
        }
        return pack(fields);
    }

    public static byte[] insert(long echo, Map<String, ?> data) {
        return request("oper", "INSERT", "nodeid", 1L, "echo", echo, "data", data);
    }

    public static byte[] get(long echo, String... keys) {
        return request("oper", "GET", "nodeid", 1L, "echo", echo, "keys", List.of(keys));
    }

    public static byte[] persist(long nodeid, long echo, Map<String, ?> data) {
        return request("oper", "PERSIST", "nodeid", nodeid, "echo", echo, "data", data);
    }

    public static byte[] getPersist(long nodeid, long echo, String... keys) {
        return request("oper", "GETPERSIST", "nodeid", nodeid, "echo", echo, "keys", List.of(keys));
    }

    public static byte[] getBucket(long echo, String collection) {
        return request("oper", "GETBUCKET", "nodeid", 1L, "echo", echo, "collection", collection);
    }

    public static byte[] pack(Object value) {
        try (MessageBufferPacker packer = MessagePack.newDefaultBufferPacker()) {
            write(packer, value);
            return packer.toByteArray();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void write(MessagePacker packer, Object value) throws IOException {
        if (value == null) {
            packer.packNil();
        } else if (value instanceof String text) {
            packer.packString(text);
        } else if (value instanceof Long || value instanceof Integer) {
            packer.packLong(((Number) value).longValue());
        } else if (value instanceof BigInteger number) {
            packer.packBigInteger(number);
        } else if (value instanceof Raw raw) {
            packer.writePayload(raw.bytes());
        } else if (value instanceof Map<?, ?> map) {
            packer.packMapHeader(map.size());
            for (Map.Entry<?, ?> entry : map.entrySet()) {
                write(packer, entry.getKey());
                write(packer, entry.getValue());
            }
        } else if (value instanceof List<?> list) {
            packer.packArrayHeader(list.size());
            for (Object element : list) {
                write(packer, element);
            }
        } else {
            throw new IllegalArgumentException("cannot pack " + value.getClass());
        }
    }

    /** An integer written in exactly the format {@code code} (0xcc uint8 ... 0xd3 int64), big-endian. */
    public static Raw integer(int code, BigInteger value) {
        int size = switch (code) {
            case 0xcc, 0xd0 -> 1;
            case 0xcd, 0xd1 -> 2;
            case 0xce, 0xd2 -> 4;
            case 0xcf, 0xd3 -> 8;
            default -> throw new IllegalArgumentException("not a sized integer format: " + code);
        };
        byte[] bytes = new byte[1 + size];
        bytes[0] = (byte) code;
        long bits = value.longValue();
        for (int i = 0; i < size; i++) {
            bytes[size - i] = (byte) (bits >>> (8 * i));
        }
        return new Raw(bytes);
    }

    public static Raw integer(int code, long value) {
        return integer(code, BigInteger.valueOf(value));
    }

    // --- replies ---

    public static Reply parse(byte[] datagram) throws IOException {
        try (MessageUnpacker unpacker = MessagePack.newDefaultUnpacker(datagram)) {
            int fields = unpacker.unpackMapHeader();
            String oper = null;
            Object nodeid = null;
            long echo = -1;
            Map<String, Typed> result = null;
            String error = null;
            for (int i = 0; i < fields; i++) {
                String name = unpacker.unpackString();
                switch (name) {
                    case "oper" -> oper = unpacker.unpackString();
                    case "nodeid" -> nodeid = readTyped(unpacker).value();
                    case "echo" -> echo = unpacker.unpackLong();
                    case "error" -> error = unpacker.unpackString();
                    case "result" -> {
                        if (unpacker.getNextFormat() == MessageFormat.NIL) {
                            unpacker.unpackNil();
                        } else {
                            result = new LinkedHashMap<>();
                            int size = unpacker.unpackMapHeader();
                            for (int j = 0; j < size; j++) {
                                result.put(unpacker.unpackString(), readTyped(unpacker));
                            }
                        }
                    }
                    default -> throw new AssertionError("unexpected reply field " + name);
                }
            }
            if (unpacker.hasNext()) {
                throw new AssertionError("bytes after the reply map");
            }
            return new Reply(oper, nodeid, echo, result, error);
        }
    }

    private static Typed readTyped(MessageUnpacker unpacker) throws IOException {
        MessageFormat format = unpacker.getNextFormat();
        return switch (format.getValueType()) {
            case NIL -> {
                unpacker.unpackNil();
                yield new Typed(format, null);
            }
            case INTEGER -> new Typed(format, unpacker.unpackBigInteger());
            case STRING -> new Typed(format, new String(unpacker.readPayload(unpacker.unpackRawStringHeader()),
                    StandardCharsets.UTF_8));
            case BINARY -> new Typed(format, unpacker.readPayload(unpacker.unpackBinaryHeader()));
            default -> throw new AssertionError("unexpected value type in a reply: " + format);
        };
    }

    @Override
    public void close() {
        socket.close();
    }
}
