package kvgate.load;

import java.util.Arrays;

/** A first-in first-out queue of longs that grows as needed, without boxing. */
final class LongRing {
    private long[] values = new long[64];
    private int head;
    private int size;

    void add(long value) {
        if (size == values.length) {
            long[] grown = new long[values.length * 2];
            for (int i = 0; i < size; i++) {
                grown[i] = values[(head + i) % values.length];
            }
            values = grown;
            head = 0;
        }
        values[(head + size) % values.length] = value;
        size++;
    }

    long poll() {
        if (size == 0) {
            throw new IllegalStateException("empty");
        }
        long value = values[head];
        head = (head + 1) % values.length;
        size--;
        return value;
    }

    /** The oldest value, not removed. */
    long peek() {
        if (size == 0) {
            throw new IllegalStateException("empty");
        }
        return values[head];
    }

    boolean isEmpty() {
        return size == 0;
    }

    int size() {
        return size;
    }

    void clear() {
        Arrays.fill(values, 0);
        head = 0;
        size = 0;
    }
}
