package kvgate.memcached.binary;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.ChannelHandlerContext;
import java.util.List;
import kvgate.net.SkippingFrameDecoder;

/**
 * Cuts the byte stream into {@link BinaryFrame}s. Lengths are checked from the header before any body byte is
 * waited for, so the most a connection can make the gateway buffer is one header, extras, key and a value of
 * {@code max_item_size}:
 * <ul>
 *   <li>a body longer than {@code max_frame}: "too large", then the connection is closed (the stream may be
 *       garbage, or a client gone wrong);</li>
 *   <li>a value longer than {@code max_item_size}: "too large", the body is skipped as it arrives without being
 *       kept, and the connection goes on, as memcached does;</li>
 *   <li>bad magic, or framing extras, extras and key longer than the body: "invalid arguments", the frame is skipped
 *       by its length and the connection goes on.</li>
 * </ul>
 * A request in Couchbase's alternative framing (magic 0x08: framing extras ahead of the extras, their length in
 * byte 2, and a one-byte key length in byte 3) is cut the same way; whether the connection negotiated it, and what
 * its framing extras say, is the translator's to judge.
 */
public final class BinaryFrameDecoder extends SkippingFrameDecoder {
    static final int HEADER_LENGTH = 24;
    static final int REQUEST_MAGIC = 0x80;
    /** Couchbase's alternative request framing, served only after HELLO grants feature 0x10. */
    static final int ALT_REQUEST_MAGIC = 0x08;

    private final int maxItemSize;
    private final long maxFrame;
    /** After an unrecoverable framing error nothing more is read from this connection. */
    private boolean failed;

    public BinaryFrameDecoder(int maxItemSize, long maxFrame) {
        this.maxItemSize = maxItemSize;
        this.maxFrame = maxFrame;
    }

    @Override
    protected void decodeFrame(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        if (failed) {
            in.skipBytes(in.readableBytes());
            return;
        }
        if (in.readableBytes() < HEADER_LENGTH) {
            return;
        }
        int start = in.readerIndex();
        int magic = in.getUnsignedByte(start);
        int opcode = in.getUnsignedByte(start + 1);
        long bodyLength = in.getUnsignedInt(start + 8);
        int opaque = in.getInt(start + 12);
        if (bodyLength > maxFrame) {
            failed = true;
            refused(ctx);
            in.skipBytes(in.readableBytes());
            out.add(new MalformedFrame(opcode, opaque, BinaryStatus.TOO_LARGE,
                    "request body of " + bodyLength + " bytes exceeds memcached.max_frame", true,
                    BinaryResponse.EMPTY));
            return;
        }
        boolean flexible = magic == ALT_REQUEST_MAGIC;
        if (magic != REQUEST_MAGIC && !flexible) {
            reject(in, bodyLength, new MalformedFrame(opcode, opaque, BinaryStatus.INVALID_ARGUMENTS,
                    "bad magic 0x" + Integer.toHexString(magic), false, BinaryResponse.EMPTY), out);
            return;
        }
        int framingLength = flexible ? in.getUnsignedByte(start + 2) : 0;
        int keyLength = flexible ? in.getUnsignedByte(start + 3) : in.getUnsignedShort(start + 2);
        int extrasLength = in.getUnsignedByte(start + 4);
        int headLength = framingLength + extrasLength + keyLength;
        if (headLength > bodyLength) {
            reject(in, bodyLength, new MalformedFrame(opcode, opaque, BinaryStatus.INVALID_ARGUMENTS,
                    "framing extras, extras and key lengths exceed the body length", false, BinaryResponse.EMPTY),
                    out);
            return;
        }
        long valueLength = bodyLength - headLength;
        if (valueLength > maxItemSize) {
            // Wait for the key (bounded: at most 2 * 255 + 65535 bytes) so the translator can drop a stale item.
            if (in.readableBytes() < HEADER_LENGTH + headLength) {
                return;
            }
            byte[] key = ByteBufUtil.getBytes(in, start + HEADER_LENGTH + framingLength + extrasLength, keyLength);
            reject(in, bodyLength, new MalformedFrame(opcode, opaque, BinaryStatus.TOO_LARGE,
                    "value of " + valueLength + " bytes exceeds max_item_size", false, key), out);
            return;
        }
        if (in.readableBytes() < HEADER_LENGTH + bodyLength) {
            return;
        }
        int dataType = in.getUnsignedByte(start + 5);
        int vbucket = in.getUnsignedShort(start + 6);
        long cas = in.getLong(start + 16);
        in.skipBytes(HEADER_LENGTH);
        byte[] framing = flexible ? readBytes(in, framingLength) : null;
        byte[] extras = readBytes(in, extrasLength);
        byte[] key = readBytes(in, keyLength);
        byte[] value = readBytes(in, (int) valueLength);
        out.add(new BinaryRequest(opcode, dataType, vbucket, opaque, cas, extras, key, value, framing));
    }

    /** memcached's "out of memory" for the request whose header is held; without a whole header, no answer. */
    @Override
    protected Object shedFrame(ByteBuf held) {
        if (held.readableBytes() < HEADER_LENGTH) {
            return null;
        }
        int start = held.readerIndex();
        return new MalformedFrame(held.getUnsignedByte(start + 1), held.getInt(start + 12),
                BinaryStatus.OUT_OF_MEMORY, "shed: read_budget reached", true, BinaryResponse.EMPTY);
    }

    private void reject(ByteBuf in, long bodyLength, MalformedFrame frame, List<Object> out) {
        skip(in, HEADER_LENGTH + bodyLength);
        out.add(frame);
    }

    private static byte[] readBytes(ByteBuf in, int length) {
        if (length == 0) {
            return BinaryResponse.EMPTY;
        }
        byte[] bytes = new byte[length];
        in.readBytes(bytes);
        return bytes;
    }
}
