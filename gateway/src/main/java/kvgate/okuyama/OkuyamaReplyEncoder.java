package kvgate.okuyama;

import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;
import kvgate.net.ReplyEncoder;

/**
 * Writes reply lines ending in a bare {@code \n}, as the reference server does: a client that parses bytes (not
 * lines) fails on a carriage return.
 */
public final class OkuyamaReplyEncoder implements ReplyEncoder<String> {

    @Override
    public int size(String line) {
        return line.length() + 1; // ISO-8859-1: one byte a character
    }

    @Override
    public void encode(String line, ByteBuf out) {
        out.writeCharSequence(line, StandardCharsets.ISO_8859_1);
        out.writeByte('\n');
    }
}
