package kvgate.backend.local;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import kvgate.spi.Backend;
import kvgate.spi.BackendContext;
import kvgate.spi.Item;
import kvgate.spi.Namespace;
import kvgate.spi.Operation;
import kvgate.spi.Setting;
import kvgate.spi.Settings;
import kvgate.spi.StoreMode;

/**
 * Heap the local store in memory holds per item: fills it with a number of items (default a million) of 32-byte
 * keys and 100-byte values, the items of {@code bin/bench}'s memory part, and prints the heap in use after a full
 * collection before and after. Not a JMH benchmark: run it with the heap settings to compare, e.g.
 * {@code java -Xmx300m -Xmn40m -XX:+UseParallelGC -cp ... kvgate.backend.local.LocalStoreFootprint 1000000}.
 */
public final class LocalStoreFootprint {
    private static final int KEY_LENGTH = 32;
    private static final int VALUE_LENGTH = 100;

    private LocalStoreFootprint() {
    }

    public static void main(String[] args) throws Exception {
        int items = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
        Backend store = openInMemory();
        long empty = heapInUseAfterGc();
        fill(store, items);
        long filled = heapInUseAfterGc();
        System.out.printf("items %d: heap in use after GC %.1f MiB empty, %.1f MiB filled; %.1f bytes an item"
                + " (key %d bytes, value %d bytes); curr_items %s, evictions %s; the store counts %.1f bytes an item%n",
                items, empty / 1048576.0, filled / 1048576.0, (filled - empty) / (double) items, KEY_LENGTH,
                VALUE_LENGTH, store.stats().get("curr_items"), store.stats().get("evictions"),
                Long.parseLong(store.stats().get("bytes")) / (double) items);
        store.close();
    }

    /** Stores the items; the keys' array is gone when this returns (in main it would stay on the stack). */
    private static void fill(Backend store, int items) {
        byte[] value = value();
        for (byte[] key : keys(items)) {
            store.execute(new Operation.Store(Namespace.DEFAULT, key, StoreMode.SET, value, 0, Item.NEVER, 0));
        }
    }

    static Backend openInMemory() {
        LocalBackendFactory factory = new LocalBackendFactory();
        Map<String, String> values = new HashMap<>();
        for (Setting setting : factory.settings()) {
            values.put(setting.key(), setting.defaultValue());
        }
        values.put("path", LocalBackendFactory.IN_MEMORY);
        // Every item kept: the default limit, half the heap, would evict part of a million items from a heap sized
        // for them.
        values.put("memory_limit", Long.toString(Runtime.getRuntime().maxMemory() / 10 * 9));
        return factory.open(new BackendContext("local", new Settings(values), Clock.systemUTC(), 1 << 20, null));
    }

    /**
     * {@code count} distinct keys of 32 bytes, as kvgate-load's: a prefix and a zero-padded number. In a shuffled
     * order (always the same), as clients' writes arrive: a B-tree filled in key order would leave its pages half
     * full.
     */
    static byte[][] keys(int count) {
        byte[][] keys = new byte[count][];
        for (int i = 0; i < count; i++) {
            keys[i] = String.format("kvgate-load-like-key:%011d", i).getBytes(StandardCharsets.US_ASCII);
        }
        Collections.shuffle(Arrays.asList(keys), new Random(42));
        return keys;
    }

    static byte[] value() {
        byte[] value = new byte[VALUE_LENGTH];
        Arrays.fill(value, (byte) 'v');
        return value;
    }

    /** Heap in use after full collections, repeated until it stops falling. */
    private static long heapInUseAfterGc() throws InterruptedException {
        MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        long used = Long.MAX_VALUE;
        for (int round = 0; round < 5; round++) {
            System.gc();
            Thread.sleep(100);
            long now = memory.getHeapMemoryUsage().getUsed();
            if (now >= used) {
                break;
            }
            used = now;
        }
        return used;
    }
}
