package kvgate.load;

import java.util.Arrays;
import java.util.SplittableRandom;

/** What every connection of a run shares: the key space, the value stored, the mix of reads and writes. */
final class Workload {
    private final LoadOptions options;
    private final KeySpace keys;
    private final byte[] value;

    Workload(LoadOptions options) {
        this.options = options;
        this.keys = new KeySpace(options.keySize(), options.keys());
        this.value = new byte[options.valueSize()];
        byte[] pattern = "kvgate-load-value-".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        for (int i = 0; i < value.length; i++) {
            value[i] = pattern[i % pattern.length];
        }
    }

    LoadOptions options() {
        return options;
    }

    KeySpace keys() {
        return keys;
    }

    /** The value every store writes; a read of a hit must return exactly it. */
    byte[] value() {
        return value;
    }

    boolean isValue(byte[] candidate) {
        return Arrays.equals(candidate, value);
    }

    /** The random source of one connection: its choices do not depend on the others'. */
    SplittableRandom random(int connection) {
        return new SplittableRandom(options.seed() * 1_000_003L + connection);
    }

    long randomKey(SplittableRandom random) {
        return random.nextLong(options.keys());
    }

    boolean nextIsRead(SplittableRandom random) {
        return random.nextDouble() < options.getRatio();
    }
}
