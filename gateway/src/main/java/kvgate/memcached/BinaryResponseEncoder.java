package kvgate.memcached;

import io.netty.buffer.ByteBuf;
import kvgate.server.ReplyEncoder;

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
        int bodyLength = response.extras().length + response.key().length + response.value().length;
        out.writeByte(RESPONSE_MAGIC)
                .writeByte(response.opcode())
                .writeShort(response.key().length)
                .writeByte(response.extras().length)
                .writeByte(0) // datatype: raw bytes
                .writeShort(response.status())
                .writeInt(bodyLength)
                .writeInt(response.opaque())
                .writeLong(response.cas())
                .writeBytes(response.extras())
                .writeBytes(response.key())
                .writeBytes(response.value());
    }
}
