package kvgate.okuyama;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.util.ByteProcessor;
import java.nio.charset.StandardCharsets;
import java.util.List;
import kvgate.net.SkippingFrameDecoder;

/**
 * Cuts the okuyama byte stream into lines ending in {@code \n} or {@code \r\n}. A line longer than the limit is
 * dropped as its bytes arrive, never buffered, and reported as {@link OkuyamaLine.TooLong} once its end is seen, so
 * the client gets an answer and the connection stays usable.
 */
public final class OkuyamaLineDecoder extends SkippingFrameDecoder {
    private final int maxLine;
    static final int HEAD = 8;
    /** Inside a line already known to be too long: drop bytes up to its end. */
    private boolean discarding;
    private String head = "";

    public OkuyamaLineDecoder(int maxLine) {
        this.maxLine = maxLine;
    }

    @Override
    protected boolean midRequest() {
        return discarding || super.midRequest();
    }

    /** The method's own error, named by the line's first characters. */
    @Override
    protected Object shedFrame(ByteBuf held) {
        return new OkuyamaLine.Shed(held.toString(held.readerIndex(), Math.min(HEAD, held.readableBytes()),
                StandardCharsets.ISO_8859_1));
    }

    @Override
    protected void decodeFrame(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        int start = in.readerIndex();
        int end = in.forEachByte(ByteProcessor.FIND_LF);
        if (discarding) {
            if (end < 0) {
                in.skipBytes(in.readableBytes());
                return;
            }
            in.readerIndex(end + 1);
            discarding = false;
            refused(ctx);
            out.add(new OkuyamaLine.TooLong(head));
            return;
        }
        if (end < 0) {
            if (in.readableBytes() > maxLine) {
                head = in.toString(start, Math.min(HEAD, in.readableBytes()), StandardCharsets.ISO_8859_1);
                in.skipBytes(in.readableBytes());
                discarding = true;
            }
            return;
        }
        int length = end - start;
        if (length > 0 && in.getByte(end - 1) == '\r') {
            length--;
        }
        if (length > maxLine) {
            String head = in.toString(start, Math.min(HEAD, length), StandardCharsets.ISO_8859_1);
            in.readerIndex(end + 1);
            refused(ctx);
            out.add(new OkuyamaLine.TooLong(head));
            return;
        }
        String text = in.toString(start, length, StandardCharsets.ISO_8859_1);
        in.readerIndex(end + 1);
        out.add(new OkuyamaLine.Text(text));
    }
}
