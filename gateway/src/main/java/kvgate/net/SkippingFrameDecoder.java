package kvgate.net;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import java.util.List;

/**
 * A frame decoder that can drop the rest of a frame without buffering it: bytes to skip are discarded as they
 * arrive, so a client sending a long body the protocol refuses costs no memory. Each protocol's decoder extends it
 * and decodes one frame per call of {@link #decodeFrame}.
 */
public abstract class SkippingFrameDecoder extends ByteToMessageDecoder {
    /** Bytes still to skip, as they arrive. */
    private long skipping;

    @Override
    protected final void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        if (skipping > 0) {
            int now = (int) Math.min(skipping, in.readableBytes());
            in.skipBytes(now);
            skipping -= now;
            if (skipping > 0) {
                return;
            }
        }
        decodeFrame(ctx, in, out);
    }

    /** Decodes at most one frame starting at the reader index, or returns to wait for more bytes. */
    protected abstract void decodeFrame(ChannelHandlerContext ctx, ByteBuf in, List<Object> out);

    /** Consumes the next {@code length} bytes: those already here now, the rest as they arrive. */
    protected final void skip(ByteBuf in, long length) {
        int now = (int) Math.min(length, in.readableBytes());
        in.skipBytes(now);
        skipping = length - now;
    }
}
