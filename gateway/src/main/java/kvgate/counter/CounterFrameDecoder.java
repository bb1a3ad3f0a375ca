package kvgate.counter;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import java.util.List;
import kvgate.net.SkippingFrameDecoder;

/**
 * Cuts the counter protocol's byte stream into {@link CounterFrame}s. The longest body any request reads is an
 * Acquire with a 65535-byte name; beyond that a body is skipped as it arrives, never buffered. A body declared
 * longer than the reference server's 30 MiB limit closes the connection without a reply, as that server does.
 */
public final class CounterFrameDecoder extends SkippingFrameDecoder {
    static final int HEADER_LENGTH = 12;
    static final int REQUEST_MAGIC = 0x90;
    /** Acquire: resources (4), maximum (4), name length (2), name (at most 65535). */
    static final int MAX_USEFUL_BODY = 10 + 65535;
    static final long MAX_BODY = 30L << 20;

    @Override
    protected void decodeFrame(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        if (in.readableBytes() < HEADER_LENGTH) {
            return;
        }
        int start = in.readerIndex();
        long bodyLength = in.getUnsignedInt(start + 4);
        if (bodyLength > MAX_BODY) {
            in.skipBytes(in.readableBytes());
            ctx.close();
            return;
        }
        int magic = in.getUnsignedByte(start);
        int opcode = in.getUnsignedByte(start + 1);
        int opaque = in.getInt(start + 8);
        if (magic != REQUEST_MAGIC) {
            skip(in, HEADER_LENGTH + bodyLength);
            out.add(new CounterFrame.BadMagic(opcode, opaque));
            return;
        }
        int kept = (int) Math.min(bodyLength, MAX_USEFUL_BODY);
        if (in.readableBytes() < HEADER_LENGTH + kept) {
            return;
        }
        in.skipBytes(HEADER_LENGTH);
        byte[] body = new byte[kept];
        in.readBytes(body);
        skip(in, bodyLength - kept);
        out.add(new CounterFrame.Request(opcode, opaque, body));
    }
}
