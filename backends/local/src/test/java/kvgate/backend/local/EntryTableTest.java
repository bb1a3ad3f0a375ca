package kvgate.backend.local;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.IntUnaryOperator;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;

class EntryTableTest {
    private static final long SEED = 0x5EEDL;

    private final EntryTable table = new EntryTable(SEED);

    // --- helpers: each write under the key's lock, as the contract asks ---

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.ISO_8859_1);
    }

    private static byte[] payload(byte[] entry) {
        return Arrays.copyOfRange(entry, EntryTable.payloadAt(entry), entry.length);
    }

    private static byte[] entry(byte[] key, int hash, byte[] payload) {
        byte[] entry = EntryTable.newEntry(key, hash, payload.length);
        System.arraycopy(payload, 0, entry, EntryTable.payloadAt(entry), payload.length);
        return entry;
    }

    private static void put(EntryTable table, byte[] key, int hash, byte[] payload) {
        synchronized (table.lockFor(hash)) {
            table.put(entry(key, hash, payload));
        }
    }

    private void put(byte[] key, byte[] payload) {
        put(table, key, table.hash(key), payload);
    }

    private void put(String key, String payload) {
        put(bytes(key), bytes(payload));
    }

    private static boolean remove(EntryTable table, byte[] key, int hash) {
        synchronized (table.lockFor(hash)) {
            return table.remove(key, hash);
        }
    }

    private boolean remove(String key) {
        byte[] bytes = bytes(key);
        return remove(table, bytes, table.hash(bytes));
    }

    /** The payload stored under {@code key} as text, or null. */
    private String get(String key) {
        byte[] bytes = bytes(key);
        byte[] entry = table.get(bytes, table.hash(bytes));
        return entry == null ? null : new String(payload(entry), StandardCharsets.ISO_8859_1);
    }

    /** Hashes chosen by the test: all in segment 3, the rest of the bits from {@code bits}. */
    private static int inOneSegment(int bits) {
        return bits << 10 | 3;
    }

    // --- the map contract ---

    @Test
    void anEmptyTableHoldsNothing() {
        assertNull(get("absent"));
        assertNull(get(""));
        assertFalse(remove("absent"));
        assertEquals(0, table.size());
        assertEquals(new EntryTable.Occupancy(0, 0, 0), table.occupancy());
        assertTrue(table.forEachWhile(entry -> {
            throw new AssertionError("an empty table visited an entry");
        }));
    }

    @Test
    void putThenGetReturnsTheEntryWithItsKeyAndPayload() {
        put("greeting", "hello");
        byte[] key = bytes("greeting");
        byte[] entry = table.get(key, table.hash(key));
        assertNotNull(entry);
        assertArrayEquals(key, EntryTable.key(entry));
        assertArrayEquals(bytes("hello"), payload(entry));
        assertNull(get("greetings"));
        assertNull(get("greetin"));
        assertEquals(1, table.size());
    }

    @Test
    void putOfAPresentKeyReplacesItsEntryWithoutAddingOne() {
        put("k", "first");
        put("k", "second, longer than the first");
        put("k", "");
        assertEquals("", get("k"));
        assertEquals(1, table.size());
        assertEquals(new EntryTable.Occupancy(8, 1, 0), table.occupancy());
    }

    @Test
    void removeTakesOnlyItsKeyAndReportsWhetherThereWasOne() {
        put("a", "1");
        put("b", "2");
        assertTrue(remove("a"));
        assertFalse(remove("a"));
        assertNull(get("a"));
        assertEquals("2", get("b"));
        assertEquals(1, table.size());
        put("a", "3");
        assertEquals("3", get("a"));
    }

    @Test
    void keysOfEveryLengthFromEmptyToAMebibyteAreDistinct() {
        // Keys that are prefixes of each other and differ only in trailing zero bytes, at every length around the
        // hash's eight-byte steps, and a few large ones.
        List<byte[]> keys = new ArrayList<>();
        keys.add(new byte[0]);
        for (int length = 1; length <= 300; length++) {
            keys.add(new byte[length]);
            byte[] ones = new byte[length];
            Arrays.fill(ones, (byte) 0xFF);
            keys.add(ones);
        }
        for (int length : new int[] {65_535, 65_536, 70_000, 1 << 20}) {
            byte[] key = new byte[length];
            new Random(length).nextBytes(key);
            keys.add(key);
        }
        for (int i = 0; i < keys.size(); i++) {
            put(keys.get(i), ByteBuffer.allocate(4).putInt(i).array());
        }
        assertEquals(keys.size(), table.size());
        for (int i = 0; i < keys.size(); i++) {
            byte[] key = keys.get(i);
            byte[] entry = table.get(key, table.hash(key));
            assertNotNull(entry, "key of length " + key.length);
            assertArrayEquals(key, EntryTable.key(entry));
            assertEquals(i, ByteBuffer.wrap(payload(entry)).getInt());
        }
    }

    @Test
    void keysWithTheSameHashAreKeptApart() {
        // The table trusts the hash it is given: here every key has the same one, so they share one probe sequence.
        int hash = inOneSegment(12345);
        for (int i = 0; i < 500; i++) {
            put(table, bytes("same-hash-" + i), hash, bytes("v" + i));
        }
        for (int i = 0; i < 500; i += 2) {
            assertTrue(remove(table, bytes("same-hash-" + i), hash));
        }
        put(table, bytes("same-hash-1"), hash, bytes("replaced"));
        for (int i = 0; i < 500; i++) {
            byte[] entry = table.get(bytes("same-hash-" + i), hash);
            if (i % 2 == 0) {
                assertNull(entry, "removed key " + i);
            } else {
                assertArrayEquals(bytes(i == 1 ? "replaced" : "v" + i), payload(entry), "key " + i);
            }
        }
        assertNull(table.get(bytes("same-hash-1"), inOneSegment(54321)), "a key looked up with another hash");
        assertEquals(250, table.size());
    }

    @Test
    void aSegmentGrowsAndShrinksWithItsEntries() {
        int count = 10_000;
        for (int i = 0; i < count; i++) {
            put(table, bytes("k" + i), inOneSegment(i * 7919), bytes("v" + i));
        }
        EntryTable.Occupancy full = table.occupancy();
        assertEquals(count, full.entries());
        // One segment holds them all, at most three quarters full and at least a quarter.
        assertTrue(full.slots() >= count * 4L / 3 && full.slots() <= count * 4L, "slots: " + full.slots());
        for (int i = 0; i < count - 10; i++) {
            assertTrue(remove(table, bytes("k" + i), inOneSegment(i * 7919)));
        }
        EntryTable.Occupancy sparse = table.occupancy();
        assertEquals(10, sparse.entries());
        assertTrue(sparse.slots() <= 80, "slots after removing all but ten: " + sparse.slots());
        for (int i = count - 10; i < count; i++) {
            assertArrayEquals(bytes("v" + i), payload(table.get(bytes("k" + i), inOneSegment(i * 7919))));
        }
    }

    @Test
    void aTombstoneIsLeftOnlyWhereProbesGoOnAndIsReused() {
        int hash = inOneSegment(1);
        put(table, bytes("a"), hash, bytes("1"));
        put(table, bytes("b"), hash, bytes("2"));
        put(table, bytes("c"), hash, bytes("3"));
        // "b" sits between "a" and "c" on one probe sequence: its slot must stay non-empty so "c" is still found.
        assertTrue(remove(table, bytes("b"), hash));
        assertEquals(new EntryTable.Occupancy(8, 2, 1), table.occupancy());
        assertArrayEquals(bytes("3"), payload(table.get(bytes("c"), hash)));
        // A new key on the same sequence takes the tombstone's slot.
        put(table, bytes("d"), hash, bytes("4"));
        assertEquals(new EntryTable.Occupancy(8, 3, 0), table.occupancy());
        // Removing the last of the sequence empties its slot, and the tombstones right before it with it.
        assertTrue(remove(table, bytes("d"), hash));
        assertEquals(new EntryTable.Occupancy(8, 2, 1), table.occupancy());
        assertTrue(remove(table, bytes("c"), hash));
        assertEquals(new EntryTable.Occupancy(8, 1, 0), table.occupancy());
        assertArrayEquals(bytes("1"), payload(table.get(bytes("a"), hash)));
    }

    @Test
    void churnOfKeysInOneSegmentNeitherLosesEntriesNorGrowsWithoutBound() {
        // Keys come and go in one segment, always 100 present: tombstones are reused or dropped by rebuilds.
        Map<String, String> expected = new HashMap<>();
        IntUnaryOperator hashOf = i -> inOneSegment(i * 0x9E3779B1 >>> 10);
        for (int i = 0; i < 100_000; i++) {
            put(table, bytes("k" + i), hashOf.applyAsInt(i), bytes("v" + i));
            expected.put("k" + i, "v" + i);
            if (i >= 100) {
                assertTrue(remove(table, bytes("k" + (i - 100)), hashOf.applyAsInt(i - 100)));
                expected.remove("k" + (i - 100));
            }
        }
        EntryTable.Occupancy occupancy = table.occupancy();
        assertEquals(100, occupancy.entries());
        assertTrue(occupancy.slots() <= 256, "slots: " + occupancy.slots());
        assertTrue(occupancy.entries() + occupancy.tombstones() <= occupancy.slots() * 3 / 4);
        for (int i = 100_000 - 100; i < 100_000; i++) {
            assertArrayEquals(bytes(expected.get("k" + i)), payload(table.get(bytes("k" + i), hashOf.applyAsInt(i))));
        }
    }

    @Test
    void clearEmptiesEverySegmentAndTheTableStaysUsable() {
        for (int i = 0; i < 5_000; i++) {
            put("k" + i, "v");
        }
        table.clear();
        assertEquals(0, table.size());
        assertNull(get("k1"));
        assertEquals(new EntryTable.Occupancy(0, 0, 0), table.occupancy());
        put("k1", "again");
        assertEquals("again", get("k1"));
    }

    @Test
    void forEachWhileVisitsEveryEntryOnceAndStopsWhenTold() {
        Set<String> keys = new HashSet<>();
        for (int i = 0; i < 3_000; i++) {
            put("k" + i, "v" + i);
            keys.add("k" + i);
        }
        List<String> seen = new ArrayList<>();
        assertTrue(table.forEachWhile(entry -> seen.add(
                new String(EntryTable.key(entry), StandardCharsets.ISO_8859_1))));
        assertEquals(keys.size(), seen.size());
        assertEquals(keys, new HashSet<>(seen));
        int[] visited = {0};
        assertFalse(table.forEachWhile(entry -> ++visited[0] < 10));
        assertEquals(10, visited[0]);
    }

    /** Marks the segment of {@code key} as one {@link EntryTable#removeIf} reads. */
    private void watch(String key) {
        byte[] bytes = bytes(key);
        int hash = table.hash(bytes);
        synchronized (table.lockFor(hash)) {
            table.watch(hash);
        }
    }

    @Test
    void removeIfRemovesWhatItAcceptsAndStopsWhenTold() {
        for (int i = 0; i < 2_000; i++) {
            put("k" + i, i % 3 == 0 ? "doomed" : "kept");
            watch("k" + i);
        }
        long removed = table.removeIf(entry -> payload(entry)[0] == 'd', entry -> true, () -> false);
        assertEquals(667, removed);
        assertEquals(2_000 - 667, table.size());
        for (int i = 0; i < 2_000; i++) {
            assertEquals(i % 3 == 0 ? null : "kept", get("k" + i));
        }
        assertEquals(0, table.removeIf(entry -> true, entry -> true, () -> true));
        assertEquals(2_000 - 667, table.size());
    }

    @Test
    void removeIfReadsOnlyWatchedSegmentsAndEndsTheWatchOfThoseLeftWithNothingToWatch() {
        for (int i = 0; i < 2_000; i++) {
            put("k" + i, i < 100 ? "watched" : "plain");
            if (i < 100) {
                watch("k" + i);
            }
        }
        int[] read = {0};
        Predicate<byte[]> doomed = entry -> {
            read[0]++;
            return false;
        };
        Predicate<byte[]> watched = entry -> payload(entry)[0] == 'w';
        assertEquals(0, table.removeIf(doomed, watched, () -> false));
        assertTrue(read[0] > 0 && read[0] < 2_000, "read " + read[0] + " of 2000 entries: only watched segments");
        // Nothing watched is left once the watched items are gone (or no longer watched): nothing is read then.
        for (int i = 0; i < 100; i++) {
            put("k" + i, "plain");
        }
        table.removeIf(doomed, watched, () -> false); // ends the watches
        read[0] = 0;
        assertEquals(0, table.removeIf(doomed, watched, () -> false));
        assertEquals(0, read[0], "no segment is watched any more");
        assertEquals(2_000, table.size());
    }

    // --- the hash ---

    @Test
    void hashesOfNumberedKeysSpreadEvenlyOverSegmentsAndSlots() {
        // A chi-square test of one million keys like "key:000123" and like kvgate-load's over 65,536 buckets, from
        // the hash's low bits (segment and first slot bits) and from its high bits (the rest of a slot's index).
        // (prefix, digits): zero-padded to that many digits, or none for plain decimal numbers.
        Object[][] formats = {{"key:", 6}, {"load:", 27}, {"", 0}};
        for (Object[] format : formats) {
            for (long seed : new long[] {0, SEED, -1}) {
                EntryTable seeded = new EntryTable(seed);
                int buckets = 1 << 16;
                long[] low = new long[buckets];
                long[] high = new long[buckets];
                int keys = 1_000_000;
                for (int i = 0; i < keys; i++) {
                    int hash = seeded.hash(numbered((String) format[0], (int) format[1], i));
                    low[hash & buckets - 1]++;
                    high[hash >>> 16]++;
                }
                double expected = keys / (double) buckets;
                // For a uniform hash the statistic is about buckets - 1, with a standard deviation of about 362.
                double bound = buckets + 6 * Math.sqrt(2.0 * buckets);
                for (long[] counts : new long[][] {low, high}) {
                    double chiSquare = 0;
                    for (long count : counts) {
                        chiSquare += (count - expected) * (count - expected) / expected;
                    }
                    String what = format[0] + "/" + format[1] + " seed " + seed
                            + (counts == low ? " low" : " high") + " bits";
                    assertTrue(chiSquare < bound, what + ": chi-square " + chiSquare);
                }
            }
        }
    }

    /** {@code prefix} and {@code i} in decimal, zero-padded to {@code digits} (0: as long as it needs). */
    private static byte[] numbered(String prefix, int digits, int i) {
        String number = Integer.toString(i);
        int width = Math.max(digits, number.length());
        byte[] key = Arrays.copyOf(bytes(prefix), prefix.length() + width);
        Arrays.fill(key, prefix.length(), key.length - number.length(), (byte) '0');
        System.arraycopy(bytes(number), 0, key, key.length - number.length(), number.length());
        return key;
    }

    @Test
    void theHashDependsOnTheSeedAndOnEveryByte() {
        byte[] key = bytes("key:000123");
        assertNotEquals(new EntryTable(1).hash(key), new EntryTable(2).hash(key));
        int hash = table.hash(key);
        for (int i = 0; i < key.length; i++) {
            byte[] changed = key.clone();
            changed[i] ^= 1;
            assertNotEquals(hash, table.hash(changed), "byte " + i);
        }
        assertNotEquals(table.hash(new byte[0]), table.hash(new byte[1]));
        assertNotEquals(table.hash(new byte[7]), table.hash(new byte[8]));
    }

    // --- concurrency ---

    /**
     * A payload that proves where it came from: the key, the writer, that writer's sequence number, and a checksum of
     * the three, so that a reader can tell a payload that was written from one that never was (torn or foreign).
     */
    private static byte[] signedPayload(byte[] key, int writer, long seq) {
        ByteBuffer payload = ByteBuffer.allocate(key.length + 4 + 8 + 8);
        payload.put(key).putInt(writer).putLong(seq).putLong(checksum(key, writer, seq));
        return payload.array();
    }

    private static long checksum(byte[] key, int writer, long seq) {
        return Arrays.hashCode(key) * 0x9E3779B97F4A7C15L ^ writer * 31L ^ seq * 0xC2B2AE3D27D4EB4FL;
    }

    @Test
    void concurrentWritersAndReadersSeeOnlyWrittenEntriesAndTheLastWriteWins() throws Exception {
        // Few keys so that writers and readers meet on the same ones; all in one segment, with removals, so that it
        // grows, shrinks and holds tombstones while readers probe it.
        int keyCount = 64;
        int writers = 3;
        int readers = 3;
        int writesEach = 100_000;
        byte[][] keys = new byte[keyCount][];
        int[] hashes = new int[keyCount];
        for (int k = 0; k < keyCount; k++) {
            keys[k] = bytes("key:" + k);
            // Half of the keys share one hash: long probe sequences; the rest spread over the segment.
            hashes[k] = inOneSegment(k % 2 == 0 ? 77 : k * 0x9E3779B1 >>> 10);
        }
        // What each writer has begun to write, so that a reader can tell a sequence number that was never written.
        AtomicLongArray begun = new AtomicLongArray(writers);
        byte[][] last = new byte[keyCount][];
        AtomicBoolean writing = new AtomicBoolean(true);
        ConcurrentLinkedQueue<String> problems = new ConcurrentLinkedQueue<>();
        ExecutorService pool = Executors.newFixedThreadPool(writers + readers);
        try {
            List<Future<?>> writes = new ArrayList<>();
            for (int w = 0; w < writers; w++) {
                int writer = w;
                writes.add(pool.submit(() -> {
                    Random random = new Random(writer);
                    for (long seq = 1; seq <= writesEach; seq++) {
                        int k = random.nextInt(keyCount);
                        begun.set(writer, seq);
                        synchronized (table.lockFor(hashes[k])) {
                            if (random.nextInt(8) == 0) {
                                table.remove(keys[k], hashes[k]);
                                last[k] = null;
                            } else {
                                byte[] entry = entry(keys[k], hashes[k], signedPayload(keys[k], writer, seq));
                                table.put(entry);
                                last[k] = entry;
                            }
                        }
                    }
                }));
            }
            List<Future<Long>> reads = new ArrayList<>();
            for (int r = 0; r < readers; r++) {
                int reader = r;
                reads.add(pool.submit(() -> {
                    Random random = new Random(100 + reader);
                    // Per key and writer, the highest sequence number seen: a later read may never go below it.
                    long[][] seen = new long[keyCount][writers];
                    long hits = 0;
                    while (writing.get()) {
                        int k = random.nextInt(keyCount);
                        byte[] entry = table.get(keys[k], hashes[k]);
                        if (entry == null) {
                            continue;
                        }
                        hits++;
                        String problem = check(entry, keys[k], writers, begun, seen[k]);
                        if (problem != null) {
                            problems.add(problem);
                            return hits;
                        }
                    }
                    return hits;
                }));
            }
            Readers.assertAllWellAfter(writes, writing, reads, problems);
        } finally {
            pool.shutdownNow();
        }
        int present = 0;
        for (int k = 0; k < keyCount; k++) {
            assertSame(last[k], table.get(keys[k], hashes[k]), "final entry of key " + k);
            present += last[k] == null ? 0 : 1;
        }
        assertEquals(present, table.size());
    }

    /** What is wrong with an entry a reader found for {@code key}, or null. */
    private static String check(byte[] entry, byte[] key, int writers, AtomicLongArray begun, long[] seen) {
        if (!Arrays.equals(EntryTable.key(entry), key)) {
            return "an entry of another key for " + new String(key, StandardCharsets.ISO_8859_1);
        }
        ByteBuffer payload = ByteBuffer.wrap(payload(entry));
        byte[] payloadKey = new byte[key.length];
        if (payload.remaining() != key.length + 20) {
            return "a payload of " + payload.remaining() + " bytes";
        }
        payload.get(payloadKey);
        int writer = payload.getInt();
        long seq = payload.getLong();
        if (!Arrays.equals(payloadKey, key) || writer < 0 || writer >= writers
                || payload.getLong() != checksum(key, writer, seq)) {
            return "a payload that was never written";
        }
        if (seq > begun.get(writer)) {
            return "sequence " + seq + " of writer " + writer + " before it was written";
        }
        if (seq < seen[writer]) {
            return "sequence " + seq + " of writer " + writer + " after " + seen[writer] + " was seen";
        }
        seen[writer] = seq;
        return null;
    }

    @Test
    void keysNeverRemovedAreFoundByEveryReadWhileTheirNeighboursComeAndGo() throws Exception {
        // Stable keys, each with its own tag, on one probe sequence with churning keys of every tag: their slots turn
        // to tombstones and are taken again by keys of other tags, and the segment is rebuilt (tombstones dropped,
        // new arrays of slots and tags) while readers probe it. A reader that paired a slot with the wrong tag would
        // pass over a stable key's entry and find nothing.
        int home = 9;
        byte[][] stable = new byte[8][];
        int[] stableHashes = new int[stable.length];
        for (int i = 0; i < stable.length; i++) {
            stable[i] = bytes("stable:" + i);
            stableHashes[i] = inOneSegment(home) | i << 24;
            put(table, stable[i], stableHashes[i], bytes("s" + i));
        }
        int churnCount = 256;
        byte[][] churn = new byte[churnCount][];
        int[] churnHashes = new int[churnCount];
        for (int k = 0; k < churnCount; k++) {
            churn[k] = bytes("churn:" + k);
            churnHashes[k] = k % 4 < 2 ? inOneSegment(home) | k << 24 : inOneSegment(k * 0x9E3779B1 >>> 10);
        }
        AtomicBoolean writing = new AtomicBoolean(true);
        ConcurrentLinkedQueue<String> problems = new ConcurrentLinkedQueue<>();
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<?>> writes = new ArrayList<>();
            for (int w = 0; w < 2; w++) {
                int writer = w;
                writes.add(pool.submit(() -> {
                    // Each writer its own half of the churning keys, all stored then all removed, again and again:
                    // the segment grows and shrinks, each time into new arrays.
                    for (int n = 0; n < 300; n++) {
                        for (int k = writer; k < churnCount; k += 2) {
                            put(table, churn[k], churnHashes[k], bytes("c" + n));
                        }
                        for (int k = writer; k < churnCount; k += 2) {
                            remove(table, churn[k], churnHashes[k]);
                        }
                    }
                }));
            }
            List<Future<Long>> reads = new ArrayList<>();
            for (int r = 0; r < 2; r++) {
                reads.add(pool.submit(() -> {
                    long hits = 0;
                    while (writing.get()) {
                        for (int i = 0; i < stable.length; i++) {
                            byte[] entry = table.get(stable[i], stableHashes[i]);
                            if (entry == null || !Arrays.equals(stable[i], EntryTable.key(entry))) {
                                problems.add("stable key " + i + " not found after " + hits + " reads");
                                return hits;
                            }
                            hits++;
                        }
                    }
                    return hits;
                }));
            }
            Readers.assertAllWellAfter(writes, writing, reads, problems);
        } finally {
            pool.shutdownNow();
        }
        for (int i = 0; i < stable.length; i++) {
            assertArrayEquals(bytes("s" + i), payload(table.get(stable[i], stableHashes[i])), "stable key " + i);
        }
    }

    // --- reading ahead ---

    @Test
    void theCandidateIsTheFirstEntryOnTheProbeSequenceWithTheKeysTag() {
        int hash = inOneSegment(1);
        // The same home slot (the bits between the segment's and the tag's), another tag (the top eight bits).
        int otherTag = hash ^ 0x8000_0000;
        assertNull(table.candidate(hash), "an empty table");
        put(table, bytes("x"), otherTag, bytes("0"));
        assertNull(table.candidate(hash), "an entry of another tag is no candidate");
        put(table, bytes("a"), hash, bytes("1"));
        put(table, bytes("b"), hash, bytes("2"));
        byte[] a = table.get(bytes("a"), hash);
        assertSame(a, table.candidate(hash), "past x's entry, the first with the tag");
        assertSame(table.get(bytes("x"), otherTag), table.candidate(otherTag), "x's own, in the home slot");
        assertTrue(remove(table, bytes("a"), hash));
        assertArrayEquals(bytes("b"), EntryTable.key(table.candidate(hash)), "past a's tombstone, whichever key");
        assertEquals(0, EntryTable.touch(null));
        byte[] b = table.get(bytes("b"), hash);
        assertEquals(b[0] + b[b.length - 1], EntryTable.touch(b), "the first and the last byte of the entry");
    }

    @Test
    void aReadAheadReadsEachKeysHomeSlotAndCandidateAndSkipsKeysWithoutATable() {
        int hash = inOneSegment(1) | 5 << 24; // a tag of 5
        int absent = inOneSegment(2);
        put(table, bytes("a"), hash, bytes("1"));
        EntryTable empty = new EntryTable(7);
        byte[] a = table.get(bytes("a"), hash);
        int aHome = 5 + 1 + EntryTable.touch(a); // its home slot's tag, that the slot is taken, and the entry's ends
        assertEquals(aHome, EntryTable.readAhead(new EntryTable[] {table}, new int[] {hash}));
        assertEquals(0, EntryTable.readAhead(new EntryTable[] {null, empty, table}, new int[] {hash, hash, absent}),
                "no table, an empty table and an empty slot read nothing");
        assertEquals(2 * aHome, EntryTable.readAhead(new EntryTable[] {table, null, table},
                new int[] {hash, absent, hash}), "one key twice in a burst");
    }

    @Test
    void keysOfOneHomeSlotAndDifferentTagsAreFoundPutAndRemovedPastEachOther() {
        // Eight keys whose hashes differ only in the tag: one probe sequence, which each lookup passes along.
        int[] hashes = new int[8];
        for (int i = 0; i < hashes.length; i++) {
            hashes[i] = inOneSegment(5) | i << 28;
            put(table, bytes("t" + i), hashes[i], bytes("v" + i));
        }
        for (int i = 0; i < hashes.length; i++) {
            assertArrayEquals(bytes("v" + i), payload(table.get(bytes("t" + i), hashes[i])), "key " + i);
            assertNull(table.get(bytes("t" + i), hashes[(i + 1) % hashes.length]), "key " + i + ", another tag");
        }
        put(table, bytes("t6"), hashes[6], bytes("new"));
        assertTrue(remove(table, bytes("t2"), hashes[2]));
        assertFalse(remove(table, bytes("t3"), hashes[4]), "a key under another key's tag");
        assertEquals(7, table.size());
        assertNull(table.get(bytes("t2"), hashes[2]));
        assertArrayEquals(bytes("new"), payload(table.get(bytes("t6"), hashes[6])));
        assertArrayEquals(bytes("v7"), payload(table.get(bytes("t7"), hashes[7])), "past the tombstone");
    }

    // --- memory and eviction ---

    @Test
    void anEntryTakesItsArrayRoundedUpToEightBytesBehindAHeaderOfSixteen() {
        byte[] key = bytes("k");
        byte[] entry = entry(key, table.hash(key), bytes("v")); // 16 bytes of fields, a key byte, a payload byte
        assertEquals(18, entry.length);
        assertEquals(16 + 24, EntryTable.footprint(entry));
    }

    @Test
    void theTableCountsItsEntriesAndSlotsAndGivesThemAllBackWhenCleared() {
        MemoryBudget budget = MemoryBudget.unlimited();
        EntryTable counted = budget.newTable(SEED, true);
        assertEquals(0, counted.bytes(), "no slots allocated yet");
        byte[] key = bytes("a");
        int hash = counted.hash(key);
        put(counted, key, hash, bytes("short"));
        long slots = counted.bytes() - EntryTable.footprint(counted.get(key, hash));
        assertTrue(slots > 0, "the segment's first slot array counts");
        put(counted, key, hash, bytes("a value longer than the first, in an entry of its own"));
        assertEquals(slots + EntryTable.footprint(counted.get(key, hash)), counted.bytes(),
                "the old entry's given back");
        assertTrue(remove(counted, key, hash));
        assertEquals(slots, counted.bytes(), "the slots stay, at their smallest size");
        for (int i = 0; i < 10_000; i++) {
            byte[] k = bytes("key" + i);
            put(counted, k, counted.hash(k), bytes("value" + i));
        }
        assertEquals(counted.bytes(), budget.used(), "the budget counts what its tables do");
        long entries = 0;
        for (int i = 0; i < 10_000; i++) {
            byte[] k = bytes("key" + i);
            entries += EntryTable.footprint(counted.get(k, counted.hash(k)));
        }
        long grownSlots = counted.bytes() - entries;
        assertTrue(grownSlots > 10_000 * 5 && grownSlots < 10_000 * 40, "slot arrays of " + grownSlots + " bytes");
        counted.clear();
        assertEquals(0, counted.bytes());
        assertEquals(0, budget.used());
    }

    @Test
    void aSampledEntryIsEvictedOnlyWhileItsSlotStillHoldsIt() {
        assertNull(table.sample(), "an empty table has nothing to sample");
        put("a", "1");
        EntryTable.Sample first = table.sample();
        assertSame(table.get(bytes("a"), table.hash(bytes("a"))), first.entry());
        put("a", "2");
        assertFalse(table.evict(first), "the sampled entry was replaced since");
        assertArrayEquals(bytes("2"), payload(table.get(bytes("a"), table.hash(bytes("a")))));
        EntryTable.Sample second = table.sample();
        assertTrue(table.evict(second));
        assertNull(table.get(bytes("a"), table.hash(bytes("a"))));
        assertEquals(0, table.size());
        assertFalse(table.evict(second), "already evicted");
        for (int i = 0; i < 100; i++) {
            // One entry in one segment of 1024: found every time, however the random segments fall.
            put("only", "1");
            assertTrue(table.evict(table.sample()), "round " + i);
        }
    }

    @Test
    void samplesComeFromAllOverTheTable() {
        for (int i = 0; i < 4_000; i++) {
            put("key" + i, "value" + i);
        }
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < 400; i++) {
            EntryTable.Sample sample = table.sample();
            String key = new String(EntryTable.key(sample.entry()), StandardCharsets.ISO_8859_1);
            assertArrayEquals(bytes("value" + key.substring(3)), payload(sample.entry()), "a live entry, whole");
            seen.add(key);
        }
        assertTrue(seen.size() > 300, "400 samples found only " + seen.size() + " keys");
    }

    @Test
    void anEntryIsStampedWithTheBudgetsSecondWhenStoredAndWhenMarkedUsed() {
        LocalStoreTest.MutableClock clock = new LocalStoreTest.MutableClock(50_000);
        MemoryBudget budget = new MemoryBudget(Long.MAX_VALUE, clock);
        EntryTable stamped = budget.newTable(SEED, true);
        byte[] key = bytes("k");
        int hash = stamped.hash(key);
        put(stamped, key, hash, bytes("v"));
        byte[] entry = stamped.get(key, hash);
        assertEquals(50, EntryTable.lastUsed(entry));
        clock.advance(7_000);
        stamped.markUsed(entry);
        assertEquals(50, EntryTable.lastUsed(entry), "the budget's clock has not ticked");
        budget.tick();
        stamped.markUsed(entry);
        assertEquals(57, EntryTable.lastUsed(entry));
    }

    // --- the payload rewritten in place ---

    @Test
    void aReadAcrossARewriteIsNotWholeAndTheNextOneIs() {
        byte[] key = bytes("k");
        byte[] entry = entry(key, table.hash(key), bytes("old!"));
        int before = EntryTable.beginRead(entry);
        assertTrue(EntryTable.isWhole(entry, before), "no rewrite came between");
        int rewrite = EntryTable.beginRewrite(entry);
        System.arraycopy(bytes("new!"), 0, entry, EntryTable.payloadAt(entry), 4);
        EntryTable.endRewrite(entry, rewrite);
        assertFalse(EntryTable.isWhole(entry, before), "a read begun before the rewrite");
        int after = EntryTable.beginRead(entry);
        assertNotEquals(before, after);
        assertEquals("new!", new String(payload(entry), StandardCharsets.ISO_8859_1));
        assertTrue(EntryTable.isWhole(entry, after));
        assertArrayEquals(key, EntryTable.key(entry), "a rewrite leaves the key as it was");
    }

    @Test
    void aReadWaitsOutARewriteUnderWay() throws Exception {
        byte[] key = bytes("k");
        byte[] entry = entry(key, table.hash(key), bytes("payload"));
        int rewrite = EntryTable.beginRewrite(entry);
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            Future<Integer> read = pool.submit(() -> EntryTable.beginRead(entry));
            Thread.sleep(50);
            assertFalse(read.isDone(), "a read began in the middle of a rewrite");
            EntryTable.endRewrite(entry, rewrite);
            int version = read.get(10, SECONDS);
            assertTrue(EntryTable.isWhole(entry, version));
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void aScanDuringWritesSeesEveryUntouchedEntryExactlyOnce() throws Exception {
        // Stable keys stay put while other keys come and go around them (segments grow, shrink and rebuild).
        int stableCount = 20_000;
        for (int i = 0; i < stableCount; i++) {
            put("stable-" + i, "s");
        }
        AtomicBoolean writing = new AtomicBoolean(true);
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            Future<?> churn = pool.submit(() -> {
                for (int round = 0; writing.get(); round++) {
                    for (int i = 0; i < 20_000; i++) {
                        put("churn-" + i, "c" + round);
                    }
                    for (int i = 0; i < 20_000; i++) {
                        remove("churn-" + i);
                    }
                }
            });
            for (int scan = 0; scan < 20; scan++) {
                Map<String, Integer> stableSeen = new HashMap<>();
                Set<String> churnSeen = new HashSet<>();
                List<String> twice = new ArrayList<>();
                table.forEachWhile(entry -> {
                    String key = new String(EntryTable.key(entry), StandardCharsets.ISO_8859_1);
                    if (key.startsWith("stable-")) {
                        stableSeen.merge(key, 1, Integer::sum);
                    } else if (!churnSeen.add(key)) {
                        twice.add(key);
                    }
                    return true;
                });
                assertEquals(stableCount, stableSeen.size(), "scan " + scan);
                assertTrue(stableSeen.values().stream().allMatch(n -> n == 1), "a stable key seen twice");
                assertEquals(List.of(), twice, "scan " + scan);
            }
            writing.set(false);
            churn.get(60, SECONDS);
        } finally {
            writing.set(false);
            pool.shutdownNow();
        }
    }
}
