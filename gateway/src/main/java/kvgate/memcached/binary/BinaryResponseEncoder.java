package kvgate.memcached.binary;

import io.netty.buffer.ByteBuf;
import kvgate.net.ReplyEncoder;

/** Writes {@link BinaryResponse}s as 24-byte headers followed by extras, key and value. */
public final class BinaryResponseEncoder implements ReplyEncoder<BinaryResponse> {
    static final int RESPONSE_MAGIC = 0x81;

    @Override
    public int size(BinaryResponse response) {
        return BinaryFrameDecoder.HEADER_LENGTH + response.extras().length + response.key().length
                + response.value().length;
    }

    @Override
    public void encode(BinaryResponse response, ByteBuf out) {
        int keyLength = response.key().length;
        int extrasLength = response.extras().length;
        int bodyLength = extrasLength + keyLength + response.value().length;
        // The header as three big-endian words: magic, opcode, key length, extras length, datatype (0: raw bytes)
        // and status; body length and opaque; CAS. Three bounds checks where a field at a time would take nine.
        out.ensureWritable(BinaryFrameDecoder.HEADER_LENGTH + bodyLength);
        out.writeLong((long) RESPONSE_MAGIC << 56 | (long) (response.opcode() & 0xff) << 48
                        | (long) keyLength << 32 | (long) extrasLength << 24 | response.status() & 0xffff)
                .writeLong((long) bodyLength << 32 | response.opaque() & 0xffffffffL)
                .writeLong(response.cas())
                .writeBytes(response.extras())
                .writeBytes(response.key())
                .writeBytes(response.value());
    }
}
