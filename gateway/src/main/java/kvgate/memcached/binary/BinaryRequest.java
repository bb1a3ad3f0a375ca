package kvgate.memcached.binary;

/**
 * One request of the memcached binary protocol, its parts copied out of the network buffer (so nothing
 * downstream holds a reference-counted buffer).
 *
 * @param opcode the raw opcode byte, 0-255 (see {@link Opcode#of})
 * @param dataType the datatype byte; only raw bytes (0) are accepted until a HELLO grants more
 * @param vbucket the vbucket id, which this gateway does not use
 * @param opaque echoed in the reply
 * @param cas the CAS the client asks to compare with, 0 for none
 * @param framing the flexible framing extras of a request in Couchbase's alternative framing (magic 0x08), read by
 *     {@link FrameExtras}; null for a request in the classic framing (magic 0x80)
 */
public record BinaryRequest(int opcode, int dataType, int vbucket, int opaque, long cas, byte[] extras, byte[] key,
                            byte[] value, byte[] framing) implements BinaryFrame {
    /** A request in the classic framing. */
    public BinaryRequest(int opcode, int dataType, int vbucket, int opaque, long cas, byte[] extras, byte[] key,
                         byte[] value) {
        this(opcode, dataType, vbucket, opaque, cas, extras, key, value, null);
    }
}
