package kvgate.memcached.text;

import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;
import java.util.List;
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
        List<TextReply.Value> values = ((TextReply.Values) reply).values();
        for (int i = 0; i < values.size(); i++) { // by index: no iterator for the one hit of most gets
            TextReply.Value value = values.get(i);
            out.writeBytes(VALUE).writeBytes(value.key()).writeByte(' ');
            writeDecimal(out, value.flags() & 0xffffffffL);
            out.writeByte(' ');
            writeDecimal(out, value.data().length);
            if (value.withCas()) {
                out.writeByte(' ');
                writeDecimal(out, value.cas());
            }
            out.writeBytes(CRLF).writeBytes(value.data()).writeBytes(CRLF);
        }
        out.writeBytes(TextReply.END.bytes());
    }

    /** An unsigned 64-bit number in decimal, its digits written straight into {@code out}: no string is made. */
    static void writeDecimal(ByteBuf out, long unsigned) {
        if (unsigned < 0) {
            // Above 2^63: the first digits as a signed number, then the last one.
            writeDecimal(out, Long.divideUnsigned(unsigned, 10));
            out.writeByte('0' + (int) Long.remainderUnsigned(unsigned, 10));
            return;
        }
        int digits = 1;
        for (long rest = unsigned; rest >= 10; rest /= 10) {
            digits++;
        }
        out.ensureWritable(digits);
        int at = out.writerIndex();
        long rest = unsigned;
        for (int i = at + digits - 1; i >= at; i--) {
            out.setByte(i, '0' + (int) (rest % 10));
            rest /= 10;
        }
        out.writerIndex(at + digits);
    }
}
