package kvgate.memcached;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPipeline;
import java.util.function.Consumer;

/**
 * Chooses a connection's protocol by its first byte, as memcached does: 0x80 (a binary request's magic) is the
 * binary protocol, anything else the text protocol. It then puts that protocol's handlers in its place, and they
 * see the connection start and its bytes from the first.
 */
final class FirstByteSwitch extends ChannelInboundHandlerAdapter {
    /** The first byte of every binary request; no text command starts with it. */
    static final int BINARY_MAGIC = 0x80;

    private final Consumer<ChannelPipeline> binary;
    private final Consumer<ChannelPipeline> text;

    /** @param binary and {@code text} add their protocol's handlers at the end of a pipeline */
    FirstByteSwitch(Consumer<ChannelPipeline> binary, Consumer<ChannelPipeline> text) {
        this.binary = binary;
        this.text = text;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        // Held back: the protocol's handlers see the start once they are in the pipeline.
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object message) {
        ByteBuf bytes = (ByteBuf) message;
        if (!bytes.isReadable()) {
            bytes.release();
            return;
        }
        ChannelPipeline pipeline = ctx.pipeline();
        boolean isBinary = bytes.getUnsignedByte(bytes.readerIndex()) == BINARY_MAGIC;
        // Added after this handler (it is the pipeline's last), so the start and the bytes fired from here reach
        // them and none of the handlers before it sees the start twice.
        (isBinary ? binary : text).accept(pipeline);
        ctx.fireChannelActive();
        ctx.fireChannelRead(bytes);
        pipeline.remove(this);
    }
}
