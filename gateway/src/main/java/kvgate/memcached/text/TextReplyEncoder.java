package kvgate.memcached.text;

import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;
import kvgate.net.ReplyEncoder;

/**
 * Writes {@link TextReply}s: lines as they are, blocks as their line and data, hits as
 * {@code VALUE <key> <flags> <bytes> [<cas>]} and the data, then {@code END}.
 */
public final class TextReplyEncoder implements ReplyEncoder<TextReply> {
    private static final byte[] VALUE = "VALUE ".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] CRLF = {'\r', '\n'};
    /** A VALUE line's words besides the key: three numbers of at most 20 digits and their spaces. */
    private static final int VALUE_LINE_NUMBERS = 3 * 21;

    @Override
    public int size(TextReply reply) {
        if (reply instanceof TextReply.Line line) {
            return line.bytes().length;
        }
        if (reply instanceof TextReply.Block block) {
            return block.line().length + block.data().length + CRLF.length;
        }
        TextReply.Values values = (TextReply.Values) reply;
        int size = TextReply.END.bytes().length;
        for (TextReply.Value value : values.values()) {
            size += VALUE.length + value.key().length + VALUE_LINE_NUMBERS + 2 * CRLF.length + value.data().length;
        }
        return size;
    }

    @Override
    public void encode(TextReply reply, ByteBuf out) {
        if (reply instanceof TextReply.Line line) {
            out.writeBytes(line.bytes());
            return;
        }
        if (reply instanceof TextReply.Block block) {
            out.writeBytes(block.line()).writeBytes(block.data()).writeBytes(CRLF);
            return;
        }
        TextReply.Values values = (TextReply.Values) reply;
        for (TextReply.Value value : values.values()) {
            out.writeBytes(VALUE).writeBytes(value.key()).writeByte(' ');
            writeDecimal(out, value.flags() & 0xffffffffL);
            out.writeByte(' ');
            writeDecimal(out, value.data().length);
            if (value.withCas()) {
                out.writeByte(' ');
                out.writeCharSequence(Long.toUnsignedString(value.cas()), StandardCharsets.US_ASCII);
            }
            out.writeBytes(CRLF).writeBytes(value.data()).writeBytes(CRLF);
        }
        out.writeBytes(TextReply.END.bytes());
    }

    private static void writeDecimal(ByteBuf out, long nonNegative) {
        if (nonNegative < 10) {
            out.writeByte('0' + (int) nonNegative);
        } else {
            out.writeCharSequence(Long.toString(nonNegative), StandardCharsets.US_ASCII);
        }
    }
}
