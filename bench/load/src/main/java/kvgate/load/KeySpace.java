package kvgate.load;

import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Keys of a fixed length: {@code load:} and a zero-padded decimal number, written without building a String. The
 * keys a run reads and writes at random are made once, up front, when there are few enough of them: making a key's
 * digits, a division each, was 5% of the generator's CPU at a million requests a second.
 */
final class KeySpace {
    static final byte[] PREFIX = "load:".getBytes(StandardCharsets.US_ASCII);
    /** The most keys made up front: 2 MiB of 32-byte keys (a fill's keys, each written once, are not). */
    private static final long MOST_MADE = 1 << 16;

    private final int size;
    /** Keys 0 to made.length - 1, made up front; empty when the run has too many to keep. */
    private final byte[][] made;

    KeySpace(int size) {
        this(size, 0);
    }

    /** Keys of {@code size} bytes, of which a run uses {@code count} (0: unknown), made up front if few enough. */
    KeySpace(int size, long count) {
        this.size = size;
        this.made = new byte[count > 0 && count <= MOST_MADE ? (int) count : 0][];
        for (int i = 0; i < made.length; i++) {
            made[i] = bytes(i);
        }
    }

    int size() {
        return size;
    }

    void write(ByteBuf out, long index) {
        if (index < made.length) {
            out.writeBytes(made[(int) index]);
            return;
        }
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
