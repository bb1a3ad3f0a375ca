package kvgate.memcached;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.MessageToByteEncoder;

/** Writes {@link BinaryResponse}s as 24-byte headers followed by extras, key and value. */
@ChannelHandler.Sharable
public final class BinaryResponseEncoder extends MessageToByteEncoder<BinaryResponse> {
    static final int RESPONSE_MAGIC = 0x81;

    @Override
    protected ByteBuf allocateBuffer(ChannelHandlerContext ctx, BinaryResponse response, boolean preferDirect) {
        int size = BinaryFrameDecoder.HEADER_LENGTH + response.extras().length + response.key().length
                + response.value().length;
        return preferDirect ? ctx.alloc().ioBuffer(size) : ctx.alloc().heapBuffer(size);
    }

    @Override
    protected void encode(ChannelHandlerContext ctx, BinaryResponse response, ByteBuf out) {
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
