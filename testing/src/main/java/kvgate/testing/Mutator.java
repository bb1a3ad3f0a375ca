package kvgate.testing;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

/**
 * Seeded mutations of valid protocol input for the front ends' fuzz tests. Every choice comes from one
 * {@link Random}, so a seed gives the same bytes, the same write boundaries and the same expectations every time:
 * a failure is replayed by running its seed again.
 */
public final class Mutator {
    /**
     * 32-bit length values that sit on the edges decoders get wrong: nothing, one, the largest signed int, the sign
     * bit alone, all bits set (-1 to a signed reader).
     */
    private static final long[] EXTREME_U32 = {0, 1, 0x7fff_ffffL, 0x8000_0000L, 0xffff_ffffL};

    private final Random random;

    public Mutator(long seed) {
        this.random = new Random(seed);
    }

    /** True {@code percent} times in a hundred. */
    public boolean chance(int percent) {
        return random.nextInt(100) < percent;
    }

    /** A number from 0 to {@code bound - 1}. */
    public int below(int bound) {
        return random.nextInt(bound);
    }

    /** A number from {@code low} to {@code high}, both included. */
    public int between(int low, int high) {
        return low + random.nextInt(high - low + 1);
    }

    public long nextLong() {
        return random.nextLong();
    }

    public int nextInt() {
        return random.nextInt();
    }

    @SafeVarargs
    public final <T> T pick(T... choices) {
        return choices[random.nextInt(choices.length)];
    }

    public <T> T pick(List<T> choices) {
        return choices.get(random.nextInt(choices.size()));
    }

    /** An edge-case unsigned 32-bit length, or one of {@code nearLimits} (a limit and one past it, say). */
    public long extremeLength(long... nearLimits) {
        int choice = random.nextInt(EXTREME_U32.length + nearLimits.length);
        return choice < EXTREME_U32.length ? EXTREME_U32[choice] : nearLimits[choice - EXTREME_U32.length];
    }

    /** {@code length} random bytes. */
    public byte[] bytes(int length) {
        byte[] bytes = new byte[length];
        random.nextBytes(bytes);
        return bytes;
    }

    /** Random bytes, up to {@code maxLength} of them, at least one. */
    public byte[] garbage(int maxLength) {
        return bytes(between(1, maxLength));
    }

    /** Text of {@code length} letters and digits. */
    public String text(int length) {
        String alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
        StringBuilder text = new StringBuilder(length);
        for (int i = 0; i < length; i++) {
            text.append(alphabet.charAt(random.nextInt(alphabet.length())));
        }
        return text.toString();
    }

    /**
     * A copy of {@code bytes} with 1 to {@code maxFlips} flips of bytes in {@code [from, to)}: each XORed with a
     * non-zero mask (a byte picked twice may come back to what it was). The range is cut to the array; an unchanged
     * copy when it is empty.
     */
    public byte[] flip(byte[] bytes, int from, int to, int maxFlips) {
        byte[] copy = bytes.clone();
        to = Math.min(to, copy.length);
        if (to <= from) {
            return copy;
        }
        int flips = between(1, maxFlips);
        for (int i = 0; i < flips; i++) {
            int at = between(from, to - 1);
            copy[at] ^= (byte) between(1, 255);
        }
        return copy;
    }

    /** A copy of {@code bytes} cut to a random shorter length (empty possible). */
    public byte[] truncate(byte[] bytes) {
        return bytes.length == 0 ? bytes : Arrays.copyOf(bytes, random.nextInt(bytes.length));
    }

    /** {@code inserted} put into {@code bytes} at a random position. */
    public byte[] insert(byte[] bytes, byte[] inserted) {
        int at = random.nextInt(bytes.length + 1);
        return concat(List.of(Arrays.copyOfRange(bytes, 0, at), inserted,
                Arrays.copyOfRange(bytes, at, bytes.length)));
    }

    /** The head of {@code first} joined to the tail of {@code second}: a frame that begins as one, ends as another. */
    public byte[] splice(byte[] first, byte[] second) {
        int head = random.nextInt(first.length + 1);
        int tail = random.nextInt(second.length + 1);
        return concat(List.of(Arrays.copyOfRange(first, 0, head), Arrays.copyOfRange(second, tail, second.length)));
    }

    /** {@code bytes} with big-endian {@code value} written over {@code width} bytes at {@code offset}, as a copy. */
    public static byte[] put(byte[] bytes, int offset, int width, long value) {
        byte[] copy = bytes.clone();
        for (int i = 0; i < width; i++) {
            copy[offset + i] = (byte) (value >>> (8 * (width - 1 - i)));
        }
        return copy;
    }

    public static byte[] concat(List<byte[]> parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] part : parts) {
            out.writeBytes(part);
        }
        return out.toByteArray();
    }

    /**
     * The valid frames of a stream with their framing kept: three in ten mutated by {@code mutate}, a random frame
     * of {@code random} after one in twenty, a few swapped or dropped ({@link #shuffleFrames}), and {@code last}, a
     * request whose reply ends the exchange, after them all.
     */
    public <T> List<T> mutatedInOrder(List<T> valid, UnaryOperator<T> mutate, Supplier<T> random, T last) {
        List<T> frames = new ArrayList<>();
        for (T frame : valid) {
            frames.add(chance(30) ? mutate.apply(frame) : frame);
            if (chance(5)) {
                frames.add(random.get());
            }
        }
        shuffleFrames(frames, 5, true);
        frames.add(last);
        return frames;
    }

    /**
     * Frame-level mutations of a request list, in place: some frames sent twice, some pairs swapped, and (when
     * {@code mayDrop}) some dropped; each at {@code percent} per frame.
     */
    public <T> void shuffleFrames(List<T> frames, int percent, boolean mayDrop) {
        for (int i = 0; i < frames.size(); i++) {
            if (!chance(percent)) {
                continue;
            }
            switch (random.nextInt(mayDrop ? 3 : 2)) {
                case 0 -> frames.add(i + 1, frames.get(i++));
                case 1 -> {
                    if (i + 1 < frames.size()) {
                        T next = frames.get(i + 1);
                        frames.set(i + 1, frames.get(i));
                        frames.set(i, next);
                        i++;
                    }
                }
                default -> frames.remove(i--);
            }
        }
    }

    /** Where {@link #sendSplit} writes: a client's send. */
    public interface Sender {
        void send(byte[] piece) throws IOException;
    }

    /**
     * Writes {@code stream} in randomly cut pieces (see {@link #split}), pausing now and then so that pieces arrive
     * as separate reads. A write refused because the server closed the connection ends the sending quietly: what it
     * answered before closing is still there to read.
     */
    public void sendSplit(byte[] stream, int maxPieces, Sender sender) {
        try {
            for (byte[] piece : split(stream, maxPieces)) {
                sender.send(piece);
                if (chance(30)) {
                    Thread.sleep(1);
                }
            }
        } catch (IOException e) {
            // closed (or reset) by the server
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * {@code stream} cut at random boundaries into at most {@code maxPieces} non-empty pieces, to be written one
     * write at a time: a decoder must put frames together from any split.
     */
    public List<byte[]> split(byte[] stream, int maxPieces) {
        List<Integer> cuts = new ArrayList<>();
        int pieces = between(1, maxPieces);
        for (int i = 1; i < pieces && stream.length > 1; i++) {
            cuts.add(between(1, stream.length - 1));
        }
        cuts.add(0);
        cuts.add(stream.length);
        List<byte[]> split = new ArrayList<>();
        int[] sorted = cuts.stream().mapToInt(Integer::intValue).sorted().distinct().toArray();
        for (int i = 0; i + 1 < sorted.length; i++) {
            split.add(Arrays.copyOfRange(stream, sorted[i], sorted[i + 1]));
        }
        return split;
    }
}
