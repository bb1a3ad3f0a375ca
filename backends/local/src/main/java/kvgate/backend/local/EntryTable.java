package kvgate.backend.local;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;

/**
 * The local store's index in memory: a hash table of entries, each one byte array holding its key and what is
 * stored under it (the payload, for the store a packed item). One object an item, no node or wrapper around it, and
 * a lookup is a hash and one or two probes instead of a B-tree's twenty comparisons.
 *
 * <p>An entry is {@code [hash:4][key length:4][version:4][last used:4][key][payload]}, written whole before it is
 * published. Its key never changes. Its last use, in seconds of the {@link MemoryBudget}'s clock, is what eviction
 * compares ({@link #markUsed}). A payload of a new length makes a new entry, which replaces the old one in its slot; a
 * payload of the same length is written over the old one in place ({@link #beginRewrite}), the version odd while it is
 * under way, so that readers can tell a payload read whole from one read across a rewrite ({@link #beginRead}, a
 * sequence lock). Writing in place is what keeps a set of an existing key from making garbage: a new entry is an object
 * the collector copies out of the young generation, and storing it into a slot marks that part of the old slot array
 * for the next young collection to scan again. With a large table those scans, not the requests' own short-lived
 * objects, set the length of every young pause. The table is split into {@value #SEGMENTS} segments by hash, each an
 * open-addressing table with linear probing whose slots are written with release and read with acquire semantics.
 * Beside each slot is a tag, eight bits of its entry's hash, so that a probe reads an entry only when its tag is the
 * key's: a key stored after many others (a hot key among cold ones) has a probe sequence that passes over other keys'
 * entries, and without the tags each of them would be read, a cache miss each when they are cold. The tags are a byte a
 * slot, 64 to a cache line, so the tags of a probe sequence are one line. So:
 * <ul>
 * <li>{@link #get} takes no lock and finds, for each key, a whole entry: the one before or the one after a
 *     concurrent replacement, never a part of one; its payload is read whole by a reader that checks the version
 *     ({@link #beginRead}, {@link #isWhole});</li>
 * <li>the payload is written in place only under the key's segment's lock, {@link #lockFor}, so writers never
 *     interleave;</li>
 * <li>{@link #put} and {@link #remove} must hold the key's segment, {@link #lockFor}: a caller that reads, decides
 *     and writes under it (as the store's item transitions do) is atomic against every other writer of the key;</li>
 * <li>a removed entry leaves a tombstone (readers probing past it must go on), which a later put reuses, which is
 *     cleared at once when nothing probes past it, and which a rebuild of the segment drops;</li>
 * <li>a segment grows past three quarters full (tombstones counted) and shrinks under an eighth, by building a new
 *     array under its lock and publishing it through a volatile field: a reader still on the old array sees the
 *     segment as it was when the new one was built.</li>
 * </ul>
 *
 * <p>The hash is seeded per table, so that clients cannot choose keys that all land on one probe sequence.
 */
final class EntryTable {
    private static final int SEGMENT_BITS = 10;
    private static final int SEGMENTS = 1 << SEGMENT_BITS;
    private static final int HASH = 0;
    private static final int KEY_LENGTH = 4;
    /** 8 bytes into the array, so aligned for the atomic access of an int (the array's data starts 8-aligned). */
    private static final int VERSION = 8;
    private static final int LAST_USED = 12;
    private static final int KEY = 16;
    private static final int MIN_CAPACITY = 8;
    /** Segments {@link #sample} tries at random before it looks through them all in order. */
    private static final int RANDOM_SEGMENTS = 8;
    private static final VarHandle SLOTS = MethodHandles.arrayElementVarHandle(byte[][].class);
    private static final VarHandle INTS = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.nativeOrder());
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class,
            ByteOrder.LITTLE_ENDIAN);
    /** What a removed entry leaves: not null, so that probes go on past it. No entry is empty, so none is this. */
    private static final byte[] TOMBSTONE = new byte[0];
    /** The slots of a segment that never held an entry: shared and never written, as a put grows them first. */
    private static final Slots NO_SLOTS = new Slots(1);

    private final long seed;
    private final Segment[] segments = new Segment[SEGMENTS];
    /** What this table's entries and slot arrays take, as {@link #footprint} and {@link #slotsFootprint} count. */
    private final LongAdder bytes = new LongAdder();
    private final MemoryBudget budget;

    /** A table outside any limit: for tests of the table alone. */
    EntryTable(long seed) {
        this(seed, MemoryBudget.unlimited());
    }

    /** A table whose memory counts against {@code budget}, which evicts from it when the tables together exceed it. */
    EntryTable(long seed, MemoryBudget budget) {
        this.seed = seed;
        this.budget = budget;
        for (int i = 0; i < SEGMENTS; i++) {
            segments[i] = new Segment();
        }
    }

    /**
     * One segment: its slots and counts. It is also the lock its writers hold. A slot's index comes from the hash
     * bits above the segment's, so a segment uses its whole array (22 bits: up to four million slots a segment
     * before two hashes that differ would share one home slot).
     */
    private static final class Segment {
        volatile Slots slots = NO_SLOTS;
        /** Entries and tombstones: what fills probe sequences. Written under the lock. */
        int used;
        /** Entries; volatile for {@link #size()}, written under the lock. */
        volatile int live;
        /**
         * Whether the segment may hold an entry {@link #removeIf} will be asked to remove (an item with an expiry):
         * set by {@link #watch} and cleared by a removal pass that found none left, both under the lock.
         */
        volatile boolean watched;
    }

    /**
     * A segment's slots and their tags, published together, so that a reader never pairs the tags of one array with
     * the entries of another. A slot's tag is written before its entry (with release), so a reader that finds an
     * entry (with acquire) sees its tag or a later one; a later one belongs to a later entry of that slot, written
     * after this entry was removed, so skipping this entry then misses only a key that was removed meanwhile.
     */
    private record Slots(byte[][] entries, byte[] tags) {
        Slots(int capacity) {
            this(new byte[capacity][], new byte[capacity]);
        }

        int mask() {
            return entries.length - 1;
        }

        /** Puts {@code entry}, whose hash is {@code hash}, in slot {@code i}: its tag first, then the entry. */
        void set(int i, byte[] entry, int hash) {
            tags[i] = tagOf(hash);
            SLOTS.setRelease(entries, i, entry);
        }
    }

    // --- entries ---

    /** The hash of a key, computed once per operation and handed to every other method. */
    int hash(byte[] key) {
        // Eight bytes a step, each step a multiply, rotate and multiply (a bijection of the word for a given state),
        // then murmur3's finalizer, so that keys differing in one digit spread over segments and slots alike.
        int length = key.length;
        long h = seed ^ (length * 0x9E3779B97F4A7C15L);
        int at = 0;
        for (; at + Long.BYTES <= length; at += Long.BYTES) {
            h = step(h, (long) LONGS.get(key, at));
        }
        long tail = 0;
        for (int i = length - 1; i >= at; i--) {
            tail = tail << 8 | (key[i] & 0xFF);
        }
        h = step(h, tail);
        h ^= h >>> 33;
        h *= 0xFF51AFD7ED558CCDL;
        h ^= h >>> 33;
        h *= 0xC4CEB9FE1A85EC53L;
        h ^= h >>> 33;
        return (int) h;
    }

    private static long step(long h, long word) {
        return Long.rotateLeft(h ^ word * 0x87C37B91114253D5L, 31) * 0x4CF5AD432745937FL;
    }

    /** A new entry for {@code key} with {@code payloadLength} bytes of payload for the caller to fill. */
    static byte[] newEntry(byte[] key, int hash, int payloadLength) {
        byte[] entry = new byte[KEY + key.length + payloadLength];
        INTS.set(entry, HASH, hash);
        INTS.set(entry, KEY_LENGTH, key.length);
        System.arraycopy(key, 0, entry, KEY, key.length);
        return entry;
    }

    /** Where an entry's payload starts; it runs to the end of the array. */
    static int payloadAt(byte[] entry) {
        return KEY + keyLength(entry);
    }

    /** The length of an entry's payload. */
    static int payloadLength(byte[] entry) {
        return entry.length - payloadAt(entry);
    }

    // --- the payload, read whole and rewritten in place ---

    /**
     * Begins a read of an entry's payload: waits out a rewrite under way and returns the version to hand to
     * {@link #isWhole} once the payload is read. A reader reads the payload, then, if it was not whole, reads again.
     */
    static int beginRead(byte[] entry) {
        int version;
        while (((version = (int) INTS.getAcquire(entry, VERSION)) & 1) != 0) {
            Thread.onSpinWait();
        }
        return version;
    }

    /** Whether the payload read since {@link #beginRead} returned {@code version} was read whole. */
    static boolean isWhole(byte[] entry, int version) {
        // The fence keeps the payload's reads ahead of the version's (StampedLock.validate's ordering).
        VarHandle.acquireFence();
        return (int) INTS.getAcquire(entry, VERSION) == version;
    }

    /**
     * Begins writing a payload of the same length over an entry's, in place: marks the entry as being rewritten and
     * returns what to hand to {@link #endRewrite}. Hold the key's {@link #lockFor}.
     */
    static int beginRewrite(byte[] entry) {
        int version = (int) INTS.get(entry, VERSION) + 1;
        INTS.setOpaque(entry, VERSION, version);
        // The odd version is seen before any byte of the new payload.
        VarHandle.storeStoreFence();
        return version;
    }

    /** Ends a rewrite: the payload written since {@link #beginRewrite} is seen whole from now on. */
    static void endRewrite(byte[] entry, int version) {
        INTS.setRelease(entry, VERSION, version + 1);
    }

    // --- use and size, for the memory budget ---

    /**
     * Notes that an entry was used now: read, or written in place. The stamp is written only when it changes, once a
     * second at most, so that a key read often does not write its entry's line on every read.
     */
    void markUsed(byte[] entry) {
        int now = budget.now();
        if ((int) INTS.get(entry, LAST_USED) != now) {
            INTS.set(entry, LAST_USED, now);
        }
    }

    /** When an entry was last used, in seconds of the budget's clock. */
    static int lastUsed(byte[] entry) {
        return (int) INTS.get(entry, LAST_USED);
    }

    /** The heap an entry takes: the array's header (16 bytes on a 64-bit JVM) and its data, in 8-byte units. */
    static long footprint(byte[] entry) {
        return arrayFootprint(entry.length);
    }

    /** The heap an entry of a key and a payload of these lengths would take ({@link #footprint}). */
    static long footprint(int keyLength, int payloadLength) {
        return arrayFootprint((long) KEY + keyLength + payloadLength);
    }

    private static long arrayFootprint(long length) {
        return 16L + length + 7 & ~7L;
    }

    /**
     * The heap a segment's slots take beyond their entries: the record, the array of references (four bytes each,
     * as with compressed references, a heap under 32 GB) and the tags. Shared empty slots take nothing.
     */
    private static long slotsFootprint(Slots slots) {
        int capacity = slots == NO_SLOTS ? 0 : slots.entries.length;
        return capacity == 0 ? 0 : 24L + (16L + 4L * capacity + 7 & ~7L) + (16L + capacity + 7 & ~7L);
    }

    /** What the table takes: its entries and slot arrays. */
    long bytes() {
        return bytes.sum();
    }

    private void account(long delta) {
        bytes.add(delta);
        budget.add(delta);
    }

    /** A copy of an entry's key. */
    static byte[] key(byte[] entry) {
        return Arrays.copyOfRange(entry, KEY, KEY + keyLength(entry));
    }

    private static int keyLength(byte[] entry) {
        return (int) INTS.get(entry, KEY_LENGTH);
    }

    private static int hashOf(byte[] entry) {
        return (int) INTS.get(entry, HASH);
    }

    /** Whether {@code entry} holds the key found in {@code array} from {@code at}, {@code length} bytes long. */
    private static boolean holds(byte[] entry, int hash, byte[] array, int at, int length) {
        return hashOf(entry) == hash && keyLength(entry) == length
                && Arrays.equals(entry, KEY, KEY + length, array, at, at + length);
    }

    private Segment segmentOf(int hash) {
        return segments[hash & (SEGMENTS - 1)];
    }

    private static int home(int hash, int mask) {
        return hash >>> SEGMENT_BITS & mask;
    }

    /** The top eight bits: apart from a slot index's bits in any segment of up to 2^14 slots. */
    private static byte tagOf(int hash) {
        return (byte) (hash >>> 24);
    }

    // --- reads, without a lock ---

    /** The entry holding {@code key}, or null. */
    byte[] get(byte[] key, int hash) {
        Slots slots = segmentOf(hash).slots;
        byte[][] entries = slots.entries;
        byte[] tags = slots.tags;
        int mask = slots.mask();
        byte tag = tagOf(hash);
        // Ends: every array keeps a quarter of its slots empty, and no array is written after it is replaced.
        for (int i = home(hash, mask); ; i = i + 1 & mask) {
            byte[] entry = (byte[]) SLOTS.getAcquire(entries, i);
            if (entry == null) {
                return null;
            }
            if (tags[i] == tag && entry != TOMBSTONE && holds(entry, hash, key, 0, key.length)) {
                return entry;
            }
        }
    }

    /**
     * The entry a lookup of a key with this hash most likely ends at, whichever key it holds, or null: the first
     * on the probe sequence with the key's tag, for {@link #touch} ({@link #readAhead}).
     */
    byte[] candidate(int hash) {
        Slots slots = segmentOf(hash).slots;
        int mask = slots.mask();
        byte tag = tagOf(hash);
        for (int i = home(hash, mask); ; i = i + 1 & mask) {
            byte[] entry = (byte[]) SLOTS.getAcquire(slots.entries, i);
            if (entry == null || slots.tags[i] == tag && entry != TOMBSTONE) {
                return entry;
            }
        }
    }

    /**
     * Reads ahead the table memory a burst of lookups will need, {@code tables[i]} and {@code hashes[i]} a key each
     * (a null table for a key not to read ahead), and returns a value made of what it read. Each pass reads, for
     * every key, what the next pass needs, and no read in a pass depends on another key's: the home slots and their
     * tags first, then the entries found there. With the hashes computed before (by the caller), a pass is a few
     * instructions a key, so the processor has the misses of the whole burst under way together, where reading key
     * by key, each with its hash and its lookup, it could overlap only two or three keys'.
     */
    static int readAhead(EntryTable[] tables, int[] hashes) {
        int read = 0;
        for (int i = 0; i < tables.length; i++) {
            if (tables[i] != null) {
                int hash = hashes[i];
                Slots slots = tables[i].segmentOf(hash).slots;
                int home = home(hash, slots.mask());
                // Plain reads: nothing is decided on them, they only bring the lines in.
                read += slots.tags[home] + (slots.entries[home] == null ? 0 : 1);
            }
        }
        for (int i = 0; i < tables.length; i++) {
            if (tables[i] != null) {
                read += touch(tables[i].candidate(hashes[i]));
            }
        }
        return read;
    }

    /** Reads both ends of an entry found by {@link #candidate} (or null), and returns a value made of them. */
    static int touch(byte[] entry) {
        return entry == null ? 0 : entry[HASH] + entry[entry.length - 1];
    }

    /**
     * Hands every entry to {@code visitor} until it answers false; returns whether it saw them all. Each segment is
     * copied under its lock and visited from the copy, outside it: the visit sees each segment as it was at one
     * moment, so an entry written meanwhile may be seen or not, but no key is seen twice (reading the live array
     * could meet a key twice, removed behind the visit and put again ahead of it).
     */
    boolean forEachWhile(Predicate<byte[]> visitor) {
        for (Segment segment : segments) {
            if (segment.live == 0) {
                continue;
            }
            byte[][] entries;
            synchronized (segment) {
                entries = segment.slots.entries.clone();
            }
            for (byte[] entry : entries) {
                if (entry != null && entry != TOMBSTONE && !visitor.test(entry)) {
                    return false;
                }
            }
        }
        return true;
    }

    /** The number of entries; exact when no write is under way. */
    long size() {
        long size = 0;
        for (Segment segment : segments) {
            size += segment.live;
        }
        return size;
    }

    /** How full the table is: slots allocated, entries, tombstones. For tests and memory accounting. */
    record Occupancy(long slots, long entries, long tombstones) {
    }

    Occupancy occupancy() {
        long slots = 0;
        long entries = 0;
        long tombstones = 0;
        for (Segment segment : segments) {
            synchronized (segment) {
                slots += segment.slots == NO_SLOTS ? 0 : segment.slots.entries.length;
                entries += segment.live;
                tombstones += segment.used - segment.live;
            }
        }
        return new Occupancy(slots, entries, tombstones);
    }

    // --- writes, under the key's segment ---

    /** The lock to hold around {@link #put} and {@link #remove} of a key with this hash. */
    Object lockFor(int hash) {
        return segmentOf(hash);
    }

    /** Stores an entry made by {@link #newEntry}, replacing the one with the same key. Hold its {@link #lockFor}. */
    void put(byte[] entry) {
        int hash = hashOf(entry);
        Segment segment = segmentOf(hash);
        assert Thread.holdsLock(segment) : "put without the segment's lock";
        int keyLength = keyLength(entry);
        Slots slots = segment.slots;
        byte[][] entries = slots.entries;
        int mask = slots.mask();
        byte tag = tagOf(hash);
        int tombstone = -1;
        int i = home(hash, mask);
        for (byte[] present = entries[i]; present != null; present = entries[i]) {
            if (present == TOMBSTONE) {
                tombstone = tombstone < 0 ? i : tombstone;
            } else if (slots.tags[i] == tag && holds(present, hash, entry, KEY, keyLength)) {
                INTS.set(entry, LAST_USED, budget.now());
                SLOTS.setRelease(entries, i, entry);
                account(footprint(entry) - footprint(present));
                return;
            }
            i = i + 1 & mask;
        }
        if (tombstone >= 0) {
            i = tombstone;
        } else {
            if (segment.used + 1 > entries.length / 4 * 3) {
                slots = rebuild(segment, segment.live + 1);
                i = emptySlot(slots, hash);
            }
            segment.used++;
        }
        INTS.set(entry, LAST_USED, budget.now());
        slots.set(i, entry, hash);
        segment.live = segment.live + 1;
        account(footprint(entry));
    }

    /** Removes the entry holding {@code key}; returns whether there was one. Hold its {@link #lockFor}. */
    boolean remove(byte[] key, int hash) {
        Segment segment = segmentOf(hash);
        assert Thread.holdsLock(segment) : "remove without the segment's lock";
        Slots slots = segment.slots;
        byte[][] entries = slots.entries;
        int mask = slots.mask();
        byte tag = tagOf(hash);
        for (int i = home(hash, mask); entries[i] != null; i = i + 1 & mask) {
            if (slots.tags[i] == tag && entries[i] != TOMBSTONE && holds(entries[i], hash, key, 0, key.length)) {
                removeAt(segment, entries, i);
                shrinkIfSparse(segment);
                return true;
            }
        }
        return false;
    }

    /**
     * Marks the segment of {@code hash} as holding an entry that {@link #removeIf} may one day remove (an item with
     * an expiry): only such segments are read by it. Hold its {@link #lockFor}.
     */
    void watch(int hash) {
        Segment segment = segmentOf(hash);
        assert Thread.holdsLock(segment) : "watch without the segment's lock";
        if (!segment.watched) {
            segment.watched = true;
        }
    }

    /**
     * Removes the entries {@code doomed} accepts from the segments {@link #watch}ed, one segment at a time under its
     * lock; a segment left with no entry {@code watched} accepts is no longer watched. Stops between segments when
     * {@code stop} says so. Returns how many it removed.
     *
     * <p>A store whose items do not expire has no segment watched, and its purge reads nothing.
     */
    long removeIf(Predicate<byte[]> doomed, Predicate<byte[]> watched, BooleanSupplier stop) {
        long removed = 0;
        for (Segment segment : segments) {
            if (stop.getAsBoolean()) {
                break;
            }
            if (!segment.watched || !worthLocking(segment, doomed, watched)) {
                continue;
            }
            synchronized (segment) {
                byte[][] entries = segment.slots.entries;
                boolean stillWatched = false;
                for (int i = 0; i < entries.length; i++) {
                    byte[] entry = entries[i];
                    if (entry != null && entry != TOMBSTONE) {
                        if (doomed.test(entry)) {
                            removeAt(segment, entries, i);
                            removed++;
                        } else {
                            stillWatched |= watched.test(entry);
                        }
                    }
                }
                segment.watched = stillWatched;
                shrinkIfSparse(segment);
            }
        }
        return removed;
    }

    /**
     * Whether a watched segment is worth its lock: it seems to hold an entry {@code doomed} picks, or no longer any
     * entry {@code watched} picks (the lock then ends the watch). Read without the lock, as a get reads: a purge that
     * locked every watched segment in turn would hold up the writes to it, on a core it may share with the network
     * thread, where most hold nothing expired yet. Only a hint: the caller asks again under the lock, where no
     * rewrite is under way, and an entry rewritten meanwhile is the next pass's.
     */
    private static boolean worthLocking(Segment segment, Predicate<byte[]> doomed, Predicate<byte[]> watched) {
        boolean anyWatched = false;
        for (byte[] entry : segment.slots.entries) {
            if (entry != null && entry != TOMBSTONE) {
                if (doomed.test(entry)) {
                    return true;
                }
                anyWatched = anyWatched || watched.test(entry);
            }
        }
        return !anyWatched;
    }

    /**
     * An entry {@link #sample} found: where it was and its payload's version then, so that {@link #evict} removes
     * that entry as it was sampled and nothing written since, in its slot or in place.
     */
    record Sample(EntryTable table, byte[] entry, int version, Segment segment, Slots slots, int index) {
        /** Whether the entry's payload, read since the sample was taken, was read whole and not rewritten since. */
        boolean unchanged() {
            return isWhole(entry, version);
        }
    }

    /**
     * An entry picked at random, without a lock, or null if the table looks empty: a random segment among those
     * holding entries, then the first entry at or after a random slot of it. Not uniform (an entry after a run of
     * empty slots is picked more often, as are the entries of sparser segments), which sampling for eviction can
     * bear: what it needs is entries from all over the table.
     */
    Sample sample() {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        int first = random.nextInt(SEGMENTS);
        for (int s = 0; s < RANDOM_SEGMENTS + SEGMENTS; s++) {
            // Random segments first; in a table that fills few of them, then every one in order from a random one.
            Segment segment = segments[s < RANDOM_SEGMENTS ? random.nextInt(SEGMENTS)
                    : first + s - RANDOM_SEGMENTS & SEGMENTS - 1];
            if (segment.live == 0) {
                continue;
            }
            Slots slots = segment.slots;
            int mask = slots.mask();
            int start = random.nextInt(mask + 1);
            for (int j = 0; j <= mask; j++) {
                int i = start + j & mask;
                byte[] entry = (byte[]) SLOTS.getAcquire(slots.entries, i);
                if (entry != null && entry != TOMBSTONE) {
                    return new Sample(this, entry, beginRead(entry), segment, slots, i);
                }
            }
        }
        return null;
    }

    /**
     * Removes a sampled entry if its slot still holds it as it was sampled; returns whether it did. A writer that
     * replaced it, or wrote a payload of the same length over it (a client storing the key again), keeps it.
     */
    boolean evict(Sample sample) {
        Segment segment = sample.segment();
        synchronized (segment) {
            Slots slots = segment.slots;
            if (slots != sample.slots() || slots.entries[sample.index()] != sample.entry()
                    || (int) INTS.get(sample.entry(), VERSION) != sample.version()) {
                return false; // replaced, removed, rewritten or moved by a rebuild since it was sampled
            }
            removeAt(segment, slots.entries, sample.index());
            shrinkIfSparse(segment);
            return true;
        }
    }

    /** Removes every entry. Readers still on a segment's old array see it as it was. */
    void clear() {
        for (Segment segment : segments) {
            synchronized (segment) {
                long freed = slotsFootprint(segment.slots);
                for (byte[] entry : segment.slots.entries) {
                    freed += entry == null || entry == TOMBSTONE ? 0 : footprint(entry);
                }
                account(-freed);
                segment.slots = NO_SLOTS;
                segment.used = 0;
                segment.live = 0;
            }
        }
    }

    private void removeAt(Segment segment, byte[][] slots, int i) {
        account(-footprint(slots[i]));
        int mask = slots.length - 1;
        if (slots[i + 1 & mask] == null) {
            // No probe goes past slot i (the next one is empty), so it can be emptied, and so can the tombstones
            // right before it, for the same reason.
            SLOTS.setRelease(slots, i, null);
            segment.used--;
            for (int j = i - 1 & mask; slots[j] == TOMBSTONE; j = j - 1 & mask) {
                SLOTS.setRelease(slots, j, null);
                segment.used--;
            }
        } else {
            SLOTS.setRelease(slots, i, TOMBSTONE);
        }
        segment.live = segment.live - 1;
    }

    private void shrinkIfSparse(Segment segment) {
        int capacity = segment.slots.entries.length;
        if (capacity > MIN_CAPACITY && segment.live < capacity / 8) {
            rebuild(segment, segment.live);
        }
    }

    /** Moves a segment's entries into a new array sized for {@code entries}, without tombstones, and publishes it. */
    private Slots rebuild(Segment segment, int entries) {
        int capacity = MIN_CAPACITY;
        while (capacity / 2 < entries) {
            capacity <<= 1;
        }
        Slots fresh = new Slots(capacity);
        for (byte[] entry : segment.slots.entries) {
            if (entry != null && entry != TOMBSTONE) {
                int hash = hashOf(entry);
                fresh.set(emptySlot(fresh, hash), entry, hash);
            }
        }
        account(slotsFootprint(fresh) - slotsFootprint(segment.slots));
        // The volatile write publishes the arrays with the entries and tags written into them above.
        segment.slots = fresh;
        segment.used = segment.live;
        return fresh;
    }

    private static int emptySlot(Slots slots, int hash) {
        int mask = slots.mask();
        int i = home(hash, mask);
        while (slots.entries[i] != null) {
            i = i + 1 & mask;
        }
        return i;
    }
}
