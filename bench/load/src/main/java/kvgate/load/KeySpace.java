package kvgate.load;

import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/** Keys of a fixed length: {@code load:} and a zero-padded decimal number, written without building a String. */
final class KeySpace {
    static final byte[] PREFIX = "load:".getBytes(StandardCharsets.US_ASCII);

    private final int size;

    KeySpace(int size) {
        this.size = size;
    }

    int size() {
        return size;
    }

    void write(ByteBuf out, long index) {
        out.writeBytes(PREFIX);
        int at = out.writerIndex();
        int digits = size - PREFIX.length;
        out.ensureWritable(digits);
        long rest = index;
        for (int i = digits - 1; i >= 0; i--) {
            out.setByte(at + i, (int) ('0' + rest % 10));
            rest /= 10;
        }
        out.writerIndex(at + digits);
    }

    byte[] bytes(long index) {
        byte[] key = Arrays.copyOf(PREFIX, size);
        long rest = index;
        for (int i = size - 1; i >= PREFIX.length; i--) {
            key[i] = (byte) ('0' + rest % 10);
            rest /= 10;
        }
        return key;
    }
}
