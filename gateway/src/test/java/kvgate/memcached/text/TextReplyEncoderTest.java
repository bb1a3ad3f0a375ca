package kvgate.memcached.text;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class TextReplyEncoderTest {
    private static String decimal(long unsigned) {
        ByteBuf out = Unpooled.buffer(1); // grown by the writer
        try {
            out.writeByte('>');
            TextReplyEncoder.writeDecimal(out, unsigned);
            return out.toString(StandardCharsets.US_ASCII);
        } finally {
            out.release();
        }
    }

    @Test
    void numbersAreWrittenAsUnsignedDecimals() {
        for (long n : new long[] {0, 7, 9, 10, 99, 100, 12345, 0xffffffffL, Long.MAX_VALUE, Long.MIN_VALUE, -1}) {
            assertEquals(">" + Long.toUnsignedString(n), decimal(n));
        }
    }

    @Test
    void aValueLineNamesKeyFlagsLengthAndCasAndFitsTheSizeAnnounced() {
        TextReplyEncoder encoder = new TextReplyEncoder();
        TextReply hits = new TextReply.Values(List.of(
                new TextReply.Value("k".getBytes(StandardCharsets.US_ASCII), -1,
                        "abc".getBytes(StandardCharsets.US_ASCII), -2, true),
                new TextReply.Value("k2".getBytes(StandardCharsets.US_ASCII), 5, new byte[0], 9, false)));
        ByteBuf out = Unpooled.buffer(encoder.size(hits));
        try {
            int capacity = out.capacity();
            encoder.encode(hits, out);
            assertEquals("VALUE k 4294967295 3 18446744073709551614\r\nabc\r\nVALUE k2 5 0\r\n\r\nEND\r\n",
                    out.toString(StandardCharsets.US_ASCII));
            assertEquals(capacity, out.capacity(), "size() was enough");
        } finally {
            out.release();
        }
    }
}
