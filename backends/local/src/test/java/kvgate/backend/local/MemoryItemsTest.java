package kvgate.backend.local;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import kvgate.spi.Item;
import kvgate.spi.ItemTransition;
import kvgate.spi.Result;
import org.junit.jupiter.api.Test;

class MemoryItemsTest {
    private final MemoryItems items = new MemoryItems(0x5EEDL);
    private final byte[] key = "key".getBytes(StandardCharsets.ISO_8859_1);

    private void put(Item item) {
        items.update(key, current -> new ItemTransition(ItemTransition.Effect.PUT, item, new Result.Value(item)));
    }

    /** An item all of whose fields say {@code generation}: a read that mixes two writes shows it. */
    private static Item generation(int generation, int length) {
        byte[] value = new byte[length];
        Arrays.fill(value, (byte) generation);
        return new Item(value, generation, generation, generation);
    }

    @Test
    void aValueOfTheSameLengthIsWrittenOverTheStoredEntry() {
        put(new Item(new byte[100], 1, 10, Item.NEVER));
        byte[] entry = items.entryOf(key);
        Item second = generation(7, 100);
        put(second);
        assertSame(entry, items.entryOf(key), "a set of the same length made a new entry");
        Item read = items.get(key);
        assertArrayEquals(second.value(), read.value());
        assertEquals(new Item(read.value(), 7, 7, 7), read);

        Item longer = generation(8, 101);
        put(longer);
        assertNotSame(entry, items.entryOf(key), "a longer value must make a new entry");
        assertEquals(101, items.get(key).value().length);
        assertEquals(8, items.get(key).flags());
        assertEquals(1, items.size());
    }

    @Test
    void readersSeeWholeItemsWhileOneIsRewrittenInPlace() throws Exception {
        int length = 200;
        put(generation(0, length));
        byte[] entry = items.entryOf(key);
        AtomicBoolean writing = new AtomicBoolean(true);
        ConcurrentLinkedQueue<String> problems = new ConcurrentLinkedQueue<>();
        ExecutorService pool = Executors.newFixedThreadPool(3);
        try {
            Future<?> writer = pool.submit(() -> {
                try {
                    for (int g = 1; g <= 300_000; g++) {
                        put(generation(g, length));
                    }
                } finally {
                    writing.set(false);
                }
            });
            List<Future<Long>> readers = new ArrayList<>();
            for (int r = 0; r < 2; r++) {
                readers.add(pool.submit(() -> {
                    long reads = 0;
                    while (writing.get()) {
                        Item item = items.get(key);
                        reads++;
                        byte[] value = item.value();
                        int g = item.flags();
                        for (byte b : value) {
                            if (b != (byte) g) {
                                problems.add("generation " + g + "'s flags with a byte of " + b);
                                return reads;
                            }
                        }
                        if (item.cas() != g || item.expiresAt() != g) {
                            problems.add("generation " + g + "'s flags with CAS " + item.cas() + ", expiry "
                                    + item.expiresAt());
                            return reads;
                        }
                    }
                    return reads;
                }));
            }
            Readers.assertAllWellAfter(List.of(writer), writing, readers, problems);
        } finally {
            writing.set(false);
            pool.shutdownNow();
        }
        assertSame(entry, items.entryOf(key), "every rewrite was of the same length");
        assertEquals(300_000, items.get(key).flags());
    }
}
