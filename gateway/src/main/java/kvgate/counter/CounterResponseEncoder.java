package kvgate.counter;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.MessageToByteEncoder;

/** Writes {@link CounterResponse}s: a 12-byte header (0x91, opcode, status, 0, body length, opaque), then the body. */
@ChannelHandler.Sharable
public final class CounterResponseEncoder extends MessageToByteEncoder<CounterResponse> {
    static final int RESPONSE_MAGIC = 0x91;

    @Override
    protected ByteBuf allocateBuffer(ChannelHandlerContext ctx, CounterResponse response, boolean preferDirect) {
        int size = CounterFrameDecoder.HEADER_LENGTH + response.body().length;
        return preferDirect ? ctx.alloc().ioBuffer(size) : ctx.alloc().heapBuffer(size);
    }

    @Override
    protected void encode(ChannelHandlerContext ctx, CounterResponse response, ByteBuf out) {
        out.writeByte(RESPONSE_MAGIC)
                .writeByte(response.opcode())
                .writeByte(response.status().code())
                .writeByte(0)
                .writeInt(response.body().length)
                .writeInt(response.opaque())
                .writeBytes(response.body());
    }
}
