package kvgate.memcached;

import java.nio.ByteBuffer;

/** One response of the memcached binary protocol (magic 0x81). */
public record BinaryResponse(int opcode, int status, int opaque, long cas, byte[] extras, byte[] key, byte[] value) {
    static final byte[] EMPTY = new byte[0];

    /** A success with nothing but the status. */
    static BinaryResponse success(BinaryRequest request) {
        return new BinaryResponse(request.opcode(), 0, request.opaque(), 0, EMPTY, EMPTY, EMPTY);
    }

    /** A success carrying a CAS (stores, arithmetic). */
    static BinaryResponse success(BinaryRequest request, long cas, byte[] value) {
        return new BinaryResponse(request.opcode(), 0, request.opaque(), cas, EMPTY, EMPTY, value);
    }

    /** A success carrying a value (version, stat lines, hello). */
    static BinaryResponse value(BinaryRequest request, byte[] key, byte[] value) {
        return new BinaryResponse(request.opcode(), 0, request.opaque(), 0, EMPTY, key, value);
    }

    /** An error: memcached's message as the value, CAS 0, no extras. */
    static BinaryResponse error(int opcode, int opaque, BinaryStatus status) {
        return new BinaryResponse(opcode, status.code(), opaque, 0, EMPTY, EMPTY, status.message());
    }

    static byte[] u32(int value) {
        return ByteBuffer.allocate(4).putInt(value).array();
    }

    static byte[] u64(long value) {
        return ByteBuffer.allocate(8).putLong(value).array();
    }
}
