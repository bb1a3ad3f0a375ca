package kvgate.memcached.binary;

import java.nio.charset.StandardCharsets;

/** One response of the memcached binary protocol (magic 0x81). */
public record BinaryResponse(int opcode, int status, int opaque, long cas, byte[] extras, byte[] key, byte[] value) {
    public static final byte[] EMPTY = new byte[0];

    /** A success with nothing but the status. */
    public static BinaryResponse success(BinaryRequest request) {
        return new BinaryResponse(request.opcode(), 0, request.opaque(), 0, EMPTY, EMPTY, EMPTY);
    }

    /** A success carrying a CAS (stores, arithmetic). */
    public static BinaryResponse success(BinaryRequest request, long cas, byte[] value) {
        return new BinaryResponse(request.opcode(), 0, request.opaque(), cas, EMPTY, EMPTY, value);
    }

    /** A success carrying a value (version, stat lines, hello). */
    public static BinaryResponse value(BinaryRequest request, byte[] key, byte[] value) {
        return new BinaryResponse(request.opcode(), 0, request.opaque(), 0, EMPTY, key, value);
    }

    /** A reply of any status carrying a CAS and a value, no extras and no key (SASL's challenges, sub-documents). */
    public static BinaryResponse of(BinaryRequest request, BinaryStatus status, long cas, byte[] value) {
        return new BinaryResponse(request.opcode(), status.code(), request.opaque(), cas, EMPTY, EMPTY, value);
    }

    /**
     * An error whose value is a JSON body saying why (Couchbase's extended errors, for a client that negotiated them,
     * and the manifest uid of an unknown collection), CAS 0, no extras.
     */
    public static BinaryResponse error(int opcode, int opaque, BinaryStatus status, String json) {
        return new BinaryResponse(opcode, status.code(), opaque, 0, EMPTY, EMPTY,
                json.getBytes(StandardCharsets.UTF_8));
    }

    /** An error: memcached's message as the value, CAS 0, no extras. */
    public static BinaryResponse error(int opcode, int opaque, BinaryStatus status) {
        return new BinaryResponse(opcode, status.code(), opaque, 0, EMPTY, EMPTY, status.message());
    }

    /** Flags 0, the most common extras of a get's reply: one array for all of them, as none is ever written to. */
    private static final byte[] ZERO_U32 = new byte[4];

    public static byte[] u32(int value) {
        if (value == 0) {
            return ZERO_U32;
        }
        return new byte[] {(byte) (value >>> 24), (byte) (value >>> 16), (byte) (value >>> 8), (byte) value};
    }

    public static byte[] u64(long value) {
        byte[] bytes = new byte[8];
        for (int i = 0; i < 8; i++) {
            bytes[i] = (byte) (value >>> (56 - 8 * i));
        }
        return bytes;
    }
}
