package kvgate.okuyama;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.MessageToByteEncoder;
import java.nio.charset.StandardCharsets;

/**
 * Writes reply lines ending in a bare {@code \n}, as the reference server does: a client that parses bytes (not
 * lines) fails on a carriage return.
 */
@ChannelHandler.Sharable
public final class OkuyamaReplyEncoder extends MessageToByteEncoder<String> {

    @Override
    protected ByteBuf allocateBuffer(ChannelHandlerContext ctx, String line, boolean preferDirect) {
        return preferDirect ? ctx.alloc().ioBuffer(line.length() + 1) : ctx.alloc().heapBuffer(line.length() + 1);
    }

    @Override
    protected void encode(ChannelHandlerContext ctx, String line, ByteBuf out) {
        out.writeCharSequence(line, StandardCharsets.ISO_8859_1);
        out.writeByte('\n');
    }
}
