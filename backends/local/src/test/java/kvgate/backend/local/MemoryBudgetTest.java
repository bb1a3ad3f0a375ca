package kvgate.backend.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import kvgate.spi.Item;
import kvgate.spi.ItemTransition;
import kvgate.spi.Result;
import org.junit.jupiter.api.Test;

class MemoryBudgetTest {
    private static final long SEED = 0x5EEDL;
    private static final byte[] VALUE = new byte[100];

    private final LocalStoreTest.MutableClock clock = new LocalStoreTest.MutableClock(0);

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.ISO_8859_1);
    }

    private static void set(MemoryItems items, String key, long expiresAt) {
        set(items, key, VALUE, expiresAt);
    }

    private static void set(MemoryItems items, String key, byte[] value, long expiresAt) {
        Item item = new Item(value, 0, 1, expiresAt);
        items.update(bytes(key), current -> new ItemTransition(ItemTransition.Effect.PUT, item,
                new Result.Value(item)));
    }

    /** Moves the clock to {@code second}, and the budget's with it, as the store's housekeeping would. */
    private void at(MemoryBudget budget, long second) {
        clock.advance(second * 1000 - clock.millis());
        budget.tick();
    }

    /** What {@code count} items {@code key0}, {@code key1}, ... take in a table of the same seed. */
    private static long footprintOf(String prefix, int count) {
        MemoryBudget unlimited = MemoryBudget.unlimited();
        MemoryItems items = new MemoryItems(SEED, unlimited);
        for (int i = 0; i < count; i++) {
            set(items, prefix + i, Item.NEVER);
        }
        return unlimited.used();
    }

    private static int present(MemoryItems items, String prefix, int from, int to, int step) {
        int found = 0;
        for (int i = from; i < to; i += step) {
            found += items.get(bytes(prefix + i)) == null ? 0 : 1;
        }
        return found;
    }

    @Test
    void writesPastTheLimitEvictTheLeastRecentlyUsedAndStayUnderIt() {
        MemoryBudget budget = new MemoryBudget(footprintOf("key", 1_000), clock);
        MemoryItems items = new MemoryItems(SEED, budget);
        at(budget, 100);
        for (int i = 0; i < 1_000; i++) {
            set(items, "key" + i, Item.NEVER);
        }
        assertEquals(0, budget.evictions(), "the same items in the same table fit the limit exactly");
        at(budget, 110);
        for (int i = 0; i < 1_000; i += 10) {
            assertNotNull(items.get(bytes("key" + i)), "every tenth key read later: the hot ones");
        }
        at(budget, 120);
        for (int i = 0; i < 500; i++) {
            set(items, "new" + i, Item.NEVER);
            assertTrue(budget.used() <= budget.limit(), "over the limit after write " + i);
        }
        assertTrue(budget.evictions() >= 450, budget.evictions() + " evictions for 500 new items");
        assertEquals(0, budget.reclaimed(), "nothing had expired");
        int hot = present(items, "key", 0, 1_000, 10);
        int cold = present(items, "key", 0, 1_000, 1) - hot;
        int fresh = present(items, "new", 0, 500, 1);
        // Each eviction takes the oldest of eight samples: a hot or a new item goes only when none of the eight is
        // cold, and there are 400 or more cold ones of about 1,000 throughout.
        assertTrue(hot >= 90, "hot items kept: " + hot + " of 100");
        assertTrue(fresh >= 480, "new items kept: " + fresh + " of 500");
        assertTrue(cold <= 450, "cold items kept: " + cold + " of 900");
    }

    @Test
    void expiredItemsAreTakenBeforeLiveOnes() {
        MemoryBudget budget = new MemoryBudget(footprintOf("key", 1_000), clock);
        MemoryItems items = new MemoryItems(SEED, budget);
        at(budget, 100);
        for (int i = 0; i < 1_000; i++) {
            // Every other item expires at second 105; all were stored at second 100.
            set(items, "key" + i, i % 2 == 0 ? 105_000 : Item.NEVER);
        }
        at(budget, 110);
        for (int i = 0; i < 300; i++) {
            set(items, "new" + i, Item.NEVER);
        }
        // Stored the same second, the two halves are alike to LRU: without the preference for expired items, as
        // many live ones would go. With it, a live one goes only when none of the eight samples has expired.
        assertTrue(budget.reclaimed() >= 250, budget.reclaimed() + " expired items taken back");
        assertTrue(budget.reclaimed() > 4 * budget.evictions(), budget.reclaimed() + " expired items taken back, "
                + budget.evictions() + " live ones evicted");
        assertTrue(present(items, "key", 1, 1_000, 2) >= 420, "items that never expire kept");
        assertEquals(300, present(items, "new", 0, 300, 1), "the newest items are all kept");
    }

    @Test
    void tablesOfSeveralNamespacesShareTheLimitAndEvictionTakesFromEachByItsShare() {
        MemoryBudget budget = new MemoryBudget(footprintOf("key", 1_000) * 2, clock);
        MemoryItems big = new MemoryItems(SEED, budget);
        MemoryItems small = new MemoryItems(SEED + 1, budget);
        at(budget, 100);
        for (int i = 0; i < 1_500; i++) {
            set(big, "key" + i, Item.NEVER);
        }
        for (int i = 0; i < 300; i++) {
            set(small, "key" + i, Item.NEVER);
        }
        at(budget, 110);
        MemoryItems third = new MemoryItems(SEED + 2, budget);
        for (int i = 0; i < 1_000; i++) {
            set(third, "key" + i, Item.NEVER);
            assertTrue(budget.used() <= budget.limit(), "over the limit after write " + i);
        }
        long bigLeft = big.size();
        long smallLeft = small.size();
        assertTrue(bigLeft < 1_500 && smallLeft < 300, "both older namespaces gave items: " + bigLeft + ", "
                + smallLeft);
        // Each gave about its share: the big one five times the small one's.
        double bigShare = (1_500 - bigLeft) / 1_500.0;
        double smallShare = (300 - smallLeft) / 300.0;
        assertTrue(Math.abs(bigShare - smallShare) < 0.2, "shares " + bigShare + " and " + smallShare);
        assertTrue(third.size() >= 950, "the newest namespace kept " + third.size() + " of 1000");
    }

    @Test
    void largeValuesIntoAStoreOfSmallItemsEvictAsManyAsTheyNeed() {
        long limit = 4L << 20;
        MemoryBudget budget = new MemoryBudget(limit, clock);
        MemoryItems items = new MemoryItems(SEED, budget);
        at(budget, 100);
        byte[] small = new byte[20];
        for (int i = 0; budget.used() < limit - 4096; i++) {
            set(items, "small" + i, small, Item.NEVER);
        }
        at(budget, 110);
        byte[] large = new byte[64 * 1024];
        for (int i = 0; i < 200; i++) {
            // Each takes the room of about a thousand small items, and must free it.
            set(items, "large" + i, large, Item.NEVER);
            assertTrue(budget.used() <= limit, (budget.used() >> 10) + " KiB held after large value " + i);
        }
    }

    @Test
    void anEntryWrittenAgainInPlaceAfterItWasSampledIsNotEvicted() {
        MemoryBudget budget = new MemoryBudget(Long.MAX_VALUE, clock);
        MemoryItems items = new MemoryItems(SEED, budget);
        at(budget, 100);
        set(items, "k", bytes("old"), 100_500);
        at(budget, 101);
        EntryTable.Sample sample = items.table().sample(); // expired when sampled
        assertTrue(ItemType.isExpiredAt(sample.entry(), EntryTable.payloadAt(sample.entry()), clock.millis()));
        set(items, "k", bytes("new"), Item.NEVER); // a client stores the key again: the same length, in place
        assertFalse(sample.unchanged(), "the sample sees that its entry was written since");
        assertFalse(items.table().evict(sample));
        assertEquals("new", new String(items.get(bytes("k")).value(), StandardCharsets.ISO_8859_1));
    }

    @Test
    void theGatewaysOwnRecordsCountAgainstTheLimitButAreNotEvicted() {
        MemoryBudget budget = new MemoryBudget(footprintOf("key", 1_000), clock);
        MemoryItems own = new MemoryItems(SEED, budget, false);
        MemoryItems clients = new MemoryItems(SEED + 1, budget);
        at(budget, 100);
        for (int i = 0; i < 300; i++) {
            set(own, "key" + i, Item.NEVER);
        }
        at(budget, 110);
        for (int i = 0; i < 2_000; i++) {
            set(clients, "key" + i, Item.NEVER);
            assertTrue(budget.used() <= budget.limit(), "over the limit after write " + i);
        }
        assertEquals(300, own.size(), "older, but never sampled");
        assertTrue(clients.size() < 800, clients.size() + " client items beside 300 of the gateway's own");
    }

    @Test
    void anItemLargerThanTheWholeLimitIsRefusedAndEvictsNothing() {
        MemoryBudget budget = new MemoryBudget(footprintOf("key", 10), clock);
        MemoryItems items = new MemoryItems(SEED, budget);
        for (int i = 0; i < 5; i++) {
            set(items, "key" + i, Item.NEVER);
        }
        long before = budget.used();
        Item huge = new Item(new byte[(int) budget.limit()], 0, 1, Item.NEVER);
        ItemTransition refused = items.update(bytes("key0"), current -> new ItemTransition(
                ItemTransition.Effect.PUT, huge, new Result.Value(huge)));
        assertEquals(kvgate.spi.Status.TOO_LARGE, refused.result().status());
        assertEquals(before, budget.used());
        assertEquals(0, budget.evictions());
        assertEquals(VALUE.length, items.get(bytes("key0")).value().length, "the old item is kept");
        assertEquals(5, items.size());
    }
}
