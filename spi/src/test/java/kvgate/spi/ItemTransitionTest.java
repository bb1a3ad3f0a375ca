package kvgate.spi;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.function.LongSupplier;
import kvgate.spi.ItemTransition.Effect;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ItemTransitionTest {

    private static final Namespace NS = Namespace.DEFAULT;
    private static final byte[] KEY = bytes("k");
    private static final long NOW = 1_700_000_000_000L;
    private static final long FUTURE = NOW + 60_000;
    private static final long PAST = NOW - 1;
    private static final int MAX = 16;
    private static final long OLD_CAS = 41;
    private static final long NEW_CAS = 1000;

    /** Counts calls so tests can prove a CAS is only drawn when something is written. */
    private static final class CountingCas implements LongSupplier {
        int calls;

        @Override
        public long getAsLong() {
            calls++;
            return NEW_CAS + calls - 1;
        }
    }

    private CountingCas cas;

    @BeforeEach
    void newSupplier() {
        cas = new CountingCas();
    }

    private ItemTransition apply(Operation.KeyOperation op, Item current) {
        return ItemTransition.apply(op, current, NOW, cas, MAX);
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.US_ASCII);
    }

    private static String text(byte[] value) {
        return new String(value, StandardCharsets.US_ASCII);
    }

    private static Item item(String value, int flags, long expiresAt) {
        return new Item(bytes(value), flags, OLD_CAS, expiresAt);
    }

    private static Operation.Store store(StoreMode mode, String value, int flags, long expiresAt, long casValue) {
        return new Operation.Store(NS, KEY, mode, bytes(value), flags, expiresAt, casValue);
    }

    private static Operation.Arithmetic incr(long delta) {
        return new Operation.Arithmetic(NS, KEY, true, delta, 0, false, Item.NEVER, 0);
    }

    private static Operation.Arithmetic decr(long delta) {
        return new Operation.Arithmetic(NS, KEY, false, delta, 0, false, Item.NEVER, 0);
    }

    private void assertFailure(ItemTransition t, Status status) {
        assertEquals(Effect.NONE, t.effect());
        assertNull(t.next());
        assertInstanceOf(Result.Failure.class, t.result());
        assertEquals(status, t.result().status());
        assertEquals(0, cas.calls, "a transition that writes nothing must not draw a CAS");
    }

    private void assertStored(ItemTransition t, String value, int flags, long expiresAt) {
        assertEquals(Effect.PUT, t.effect());
        assertEquals(value, text(t.next().value()));
        assertEquals(flags, t.next().flags());
        assertEquals(expiresAt, t.next().expiresAt());
        assertEquals(NEW_CAS, t.next().cas());
        assertEquals(new Result.Stored(NEW_CAS), t.result());
        assertEquals(1, cas.calls, "exactly one CAS per write");
    }

    // --- get ---

    @Test
    void getHitReturnsTheItemWithoutWriting() {
        Item current = item("v", 7, FUTURE);
        ItemTransition t = apply(new Operation.Get(NS, KEY), current);
        assertEquals(Effect.NONE, t.effect());
        assertSame(current, ((Result.Value) t.result()).item());
        assertEquals(0, cas.calls);
    }

    @Test
    void getMissIsNotFound() {
        assertFailure(apply(new Operation.Get(NS, KEY), null), Status.NOT_FOUND);
    }

    @Test
    void getOfExpiredItemIsNotFound() {
        assertFailure(apply(new Operation.Get(NS, KEY), item("v", 0, NOW)), Status.NOT_FOUND);
    }

    @Test
    void itemExpiringOneMillisecondLaterIsStillLive() {
        ItemTransition t = apply(new Operation.Get(NS, KEY), item("v", 0, NOW + 1));
        assertTrue(t.result().ok());
    }

    // --- set ---

    @Test
    void setOnMissingKeyStoresTheNewItem() {
        assertStored(apply(store(StoreMode.SET, "new", 5, FUTURE, 0), null), "new", 5, FUTURE);
    }

    @Test
    void setWithoutCasReplacesExistingItem() {
        assertStored(apply(store(StoreMode.SET, "new", 5, Item.NEVER, 0), item("old", 9, FUTURE)),
                "new", 5, Item.NEVER);
    }

    @Test
    void aStoreKeepingTheExpiryKeepsTheReplacedItemsAndGivesANewItemItsOwn() {
        Operation.Store keeping = new Operation.Store(NS, KEY, StoreMode.SET, bytes("new"), 5, FUTURE + 1, 0, true);
        assertStored(apply(keeping, item("old", 9, FUTURE)), "new", 5, FUTURE);
        newSupplier();
        assertStored(apply(keeping, item("old", 9, Item.NEVER)), "new", 5, Item.NEVER);
        newSupplier();
        assertStored(apply(keeping, null), "new", 5, FUTURE + 1);
        newSupplier();
        // An expired item is no item: the store's own expiry applies.
        assertStored(apply(keeping, item("old", 9, PAST)), "new", 5, FUTURE + 1);
        newSupplier();
        Operation.Store replacing = new Operation.Store(NS, KEY, StoreMode.REPLACE, bytes("r"), 0, Item.NEVER, OLD_CAS,
                true);
        assertStored(apply(replacing, item("old", 9, FUTURE)), "r", 0, FUTURE);
    }

    @Test
    void setWithMatchingCasStores() {
        assertStored(apply(store(StoreMode.SET, "new", 1, Item.NEVER, OLD_CAS), item("old", 0, Item.NEVER)),
                "new", 1, Item.NEVER);
    }

    @Test
    void setWithMismatchingCasIsExists() {
        assertFailure(apply(store(StoreMode.SET, "new", 1, Item.NEVER, OLD_CAS + 1), item("old", 0, Item.NEVER)),
                Status.EXISTS);
    }

    @Test
    void setWithCasOnMissingKeyIsNotFound() {
        assertFailure(apply(store(StoreMode.SET, "new", 1, Item.NEVER, OLD_CAS), null), Status.NOT_FOUND);
    }

    @Test
    void setWithCasOnExpiredItemIsNotFound() {
        assertFailure(apply(store(StoreMode.SET, "new", 1, Item.NEVER, OLD_CAS), item("old", 0, PAST)),
                Status.NOT_FOUND);
    }

    // --- add / replace ---

    @Test
    void addOnExistingKeyIsExists() {
        assertFailure(apply(store(StoreMode.ADD, "new", 0, Item.NEVER, 0), item("old", 0, Item.NEVER)),
                Status.EXISTS);
    }

    @Test
    void addOnExpiredItemSucceeds() {
        assertStored(apply(store(StoreMode.ADD, "new", 3, Item.NEVER, 0), item("old", 0, PAST)),
                "new", 3, Item.NEVER);
    }

    @Test
    void addOnMissingKeySucceeds() {
        assertStored(apply(store(StoreMode.ADD, "new", 3, Item.NEVER, 0), null), "new", 3, Item.NEVER);
    }

    @Test
    void replaceOnMissingKeyIsNotFound() {
        assertFailure(apply(store(StoreMode.REPLACE, "new", 0, Item.NEVER, 0), null), Status.NOT_FOUND);
    }

    @Test
    void replaceOnExpiredItemIsNotFound() {
        assertFailure(apply(store(StoreMode.REPLACE, "new", 0, Item.NEVER, 0), item("old", 0, PAST)),
                Status.NOT_FOUND);
    }

    @Test
    void replaceOnExistingKeyStores() {
        assertStored(apply(store(StoreMode.REPLACE, "new", 2, FUTURE, 0), item("old", 0, Item.NEVER)),
                "new", 2, FUTURE);
    }

    // --- append / prepend ---

    @Test
    void appendKeepsFlagsAndExpiryOfTheOldItem() {
        ItemTransition t = apply(store(StoreMode.APPEND, "-tail", 99, FUTURE + 5, 0), item("head", 7, FUTURE));
        assertStored(t, "head-tail", 7, FUTURE);
    }

    @Test
    void prependKeepsFlagsAndExpiryOfTheOldItem() {
        ItemTransition t = apply(store(StoreMode.PREPEND, "head-", 99, Item.NEVER, 0), item("tail", 7, FUTURE));
        assertStored(t, "head-tail", 7, FUTURE);
    }

    @Test
    void appendToMissingKeyIsNotStored() {
        assertFailure(apply(store(StoreMode.APPEND, "x", 0, Item.NEVER, 0), null), Status.NOT_STORED);
    }

    @Test
    void prependToExpiredItemIsNotStored() {
        assertFailure(apply(store(StoreMode.PREPEND, "x", 0, Item.NEVER, 0), item("old", 0, PAST)),
                Status.NOT_STORED);
    }

    @Test
    void appendWithMismatchingCasIsExists() {
        assertFailure(apply(store(StoreMode.APPEND, "x", 0, Item.NEVER, OLD_CAS + 1), item("old", 0, Item.NEVER)),
                Status.EXISTS);
    }

    @Test
    void appendBeyondMaxItemSizeIsTooLarge() {
        // 10 + 7 bytes is one more than MAX; each part alone fits.
        assertFailure(apply(store(StoreMode.APPEND, "1234567", 0, Item.NEVER, 0), item("0123456789", 0, Item.NEVER)),
                Status.TOO_LARGE);
    }

    @Test
    void prependBeyondMaxItemSizeIsTooLarge() {
        assertFailure(apply(store(StoreMode.PREPEND, "1234567", 0, Item.NEVER, 0),
                item("0123456789", 0, Item.NEVER)), Status.TOO_LARGE);
    }

    @Test
    void appendReachingExactlyMaxItemSizeIsStored() {
        assertStored(apply(store(StoreMode.APPEND, "123456", 0, Item.NEVER, 0), item("0123456789", 0, Item.NEVER)),
                "0123456789123456", 0, Item.NEVER);
    }

    // --- size and expiry on arrival ---

    @Test
    void valueOverMaxItemSizeIsTooLarge() {
        assertFailure(apply(store(StoreMode.SET, "x".repeat(MAX + 1), 0, Item.NEVER, 0), null), Status.TOO_LARGE);
    }

    @Test
    void valueOfExactlyMaxItemSizeIsStored() {
        assertStored(apply(store(StoreMode.SET, "x".repeat(MAX), 0, Item.NEVER, 0), null),
                "x".repeat(MAX), 0, Item.NEVER);
    }

    @Test
    void storeAlreadyExpiredSucceedsButRemovesTheItem() {
        ItemTransition t = apply(store(StoreMode.SET, "new", 0, PAST, 0), item("old", 0, Item.NEVER));
        assertEquals(Effect.REMOVE, t.effect());
        assertNull(t.next());
        assertEquals(new Result.Stored(NEW_CAS), t.result());
        assertEquals(1, cas.calls);
    }

    @Test
    void storeExpiringExactlyNowIsRemoved() {
        ItemTransition t = apply(store(StoreMode.SET, "new", 0, NOW, 0), null);
        assertEquals(Effect.REMOVE, t.effect());
        assertTrue(t.result().ok());
    }

    // --- delete ---

    @Test
    void deleteHitRemovesAndReturnsThePreviousItem() {
        Item current = item("v", 4, FUTURE);
        ItemTransition t = apply(new Operation.Delete(NS, KEY, 0), current);
        assertEquals(Effect.REMOVE, t.effect());
        assertSame(current, ((Result.Removed) t.result()).previous());
        assertEquals(0, cas.calls, "a removal produces no new item, so needs no CAS");
    }

    @Test
    void deleteWithMatchingCasRemoves() {
        ItemTransition t = apply(new Operation.Delete(NS, KEY, OLD_CAS), item("v", 0, Item.NEVER));
        assertEquals(Effect.REMOVE, t.effect());
    }

    @Test
    void deleteWithMismatchingCasIsExists() {
        assertFailure(apply(new Operation.Delete(NS, KEY, OLD_CAS + 1), item("v", 0, Item.NEVER)), Status.EXISTS);
    }

    @Test
    void deleteMissIsNotFound() {
        assertFailure(apply(new Operation.Delete(NS, KEY, 0), null), Status.NOT_FOUND);
    }

    @Test
    void deleteOfExpiredItemIsNotFound() {
        assertFailure(apply(new Operation.Delete(NS, KEY, 0), item("v", 0, PAST)), Status.NOT_FOUND);
    }

    // --- arithmetic ---

    @Test
    void arithmeticOnMissingKeyCreatesInitialWithoutApplyingDelta() {
        long initial = 40;
        ItemTransition t = apply(new Operation.Arithmetic(NS, KEY, true, 2, initial, true, FUTURE, 0), null);
        assertEquals(Effect.PUT, t.effect());
        assertEquals("40", text(t.next().value()));
        assertEquals(0, t.next().flags());
        assertEquals(FUTURE, t.next().expiresAt());
        assertEquals(NEW_CAS, t.next().cas());
        assertEquals(new Result.Number(initial, NEW_CAS, FUTURE), t.result(), "the created item's expiry told");
        assertEquals(1, cas.calls);
    }

    @Test
    void arithmeticCreatesInitialAsUnsignedDecimal() {
        ItemTransition t = apply(new Operation.Arithmetic(NS, KEY, false, 1, -1L, true, Item.NEVER, 0), null);
        assertEquals(Long.toUnsignedString(-1L), text(t.next().value()));
        assertEquals("18446744073709551615", text(t.next().value()));
    }

    @Test
    void arithmeticOnExpiredItemCreatesInitial() {
        ItemTransition t = apply(new Operation.Arithmetic(NS, KEY, true, 5, 7, true, Item.NEVER, 0),
                item("100", 3, PAST));
        assertEquals("7", text(t.next().value()));
        assertEquals(0, t.next().flags());
    }

    @Test
    void arithmeticOnMissingKeyWithoutCreateIsNotFound() {
        assertFailure(apply(incr(1), null), Status.NOT_FOUND);
    }

    @Test
    void arithmeticWithCasOnMissingKeyCreatesItAsMemcachedDoes() {
        ItemTransition t = apply(new Operation.Arithmetic(NS, KEY, true, 1, 4, true, Item.NEVER, OLD_CAS), null);
        assertEquals(Effect.PUT, t.effect());
        assertEquals(new Result.Number(4, NEW_CAS), t.result());
    }

    @Test
    void arithmeticWithCasOnMissingKeyWithoutCreationIsNotFound() {
        assertFailure(apply(new Operation.Arithmetic(NS, KEY, true, 1, 4, false, Item.NEVER, OLD_CAS), null),
                Status.NOT_FOUND);
    }

    @Test
    void parseUnsignedReadsNumbersAsStrtoullDoes() {
        assertEquals(7L, ItemTransition.parseUnsigned(bytes(" 7")));
        assertEquals(7L, ItemTransition.parseUnsigned(bytes("\t+7")));
        assertEquals(7L, ItemTransition.parseUnsigned(bytes("7 trailing text")));
        assertEquals(7L, ItemTransition.parseUnsigned(bytes("7\r\n")));
        assertEquals(1L, ItemTransition.parseUnsigned(bytes("000000000000000000001")), "leading zeros");
        for (String bad : new String[] {"", " ", "+", "-5", "7a", "a7", "+-7", "0x10"}) {
            assertThrows(NumberFormatException.class, () -> ItemTransition.parseUnsigned(bytes(bad)), bad);
        }
    }

    @Test
    void arithmeticCreatingAnAlreadyExpiredItemRemovesIt() {
        ItemTransition t = apply(new Operation.Arithmetic(NS, KEY, true, 1, 9, true, PAST, 0), null);
        assertEquals(Effect.REMOVE, t.effect());
        assertEquals(new Result.Number(9, NEW_CAS, PAST), t.result());
    }

    @Test
    void incrementAddsDeltaAndKeepsFlagsAndExpiry() {
        ItemTransition t = apply(incr(5), item("10", 77, FUTURE));
        assertEquals(Effect.PUT, t.effect());
        assertEquals("15", text(t.next().value()));
        assertEquals(77, t.next().flags());
        assertEquals(FUTURE, t.next().expiresAt());
        assertEquals(new Result.Number(15, NEW_CAS, FUTURE), t.result());
    }

    @Test
    void aWriteThatChoseItsCasGivesItToTheItemWithoutAskingTheBackend() {
        ItemTransition stored = apply(new Operation.Store(NS, KEY, StoreMode.SET, bytes("v"), 0, Item.NEVER, 0, false,
                false, -7L), item("old", 0, Item.NEVER));
        assertEquals(-7L, stored.next().cas(), "any unsigned 64-bit value, 2^64-7 here");
        assertEquals(new Result.Stored(-7L), stored.result());
        ItemTransition counted = apply(new Operation.Arithmetic(NS, KEY, true, 1, 0, false, Item.NEVER, 0, null, 55),
                item("10", 0, Item.NEVER));
        assertEquals(55, counted.next().cas());
        assertEquals(new Result.Number(11, 55, Item.NEVER), counted.result());
        ItemTransition created = apply(new Operation.Arithmetic(NS, KEY, true, 1, 3, true, Item.NEVER, 0, null, 56),
                null);
        assertEquals(56, created.next().cas());
        ItemTransition stale = apply(new Operation.Invalidate(NS, KEY, 0, null, 57), item("x", 0, Item.NEVER));
        assertEquals(57, stale.next().cas());
        assertEquals(Lease.STALE, stale.next().lease());
        ItemTransition vivified = apply(new Operation.LeaseGet(NS, KEY, null, FUTURE, null, 58), null);
        assertEquals(58, vivified.next().cas());
        assertEquals(0, cas.calls, "the backend's CAS source is never called");
    }

    @Test
    void arithmeticWithANewExpirySetsItOnTheItemFoundAndTellsIt() {
        long later = FUTURE + 60_000;
        ItemTransition t = apply(new Operation.Arithmetic(NS, KEY, true, 5, 0, false, Item.NEVER, 0, later),
                item("10", 77, FUTURE));
        assertEquals(Effect.PUT, t.effect());
        assertEquals("15", text(t.next().value()));
        assertEquals(later, t.next().expiresAt());
        assertEquals(new Result.Number(15, NEW_CAS, later), t.result());
        ItemTransition never = apply(new Operation.Arithmetic(NS, KEY, true, 1, 0, false, Item.NEVER, 0, Item.NEVER),
                item("10", 0, FUTURE));
        assertEquals(Item.NEVER, never.next().expiresAt(), "a new expiry of never");
    }

    @Test
    void arithmeticWithANewExpiryLeavesACreatedItemTheExpiryOfItsCreation() {
        ItemTransition t = apply(new Operation.Arithmetic(NS, KEY, true, 5, 3, true, FUTURE, 0, FUTURE + 60_000),
                null);
        assertEquals(FUTURE, t.next().expiresAt());
        assertEquals(new Result.Number(3, NEW_CAS, FUTURE), t.result());
    }

    @Test
    void arithmeticWithANewExpiryInThePastRemovesTheItemAndStillTellsTheNumber() {
        ItemTransition t = apply(new Operation.Arithmetic(NS, KEY, false, 4, 0, false, Item.NEVER, 0, PAST),
                item("10", 0, FUTURE));
        assertEquals(Effect.REMOVE, t.effect());
        assertEquals(new Result.Number(6, NEW_CAS, PAST), t.result());
    }

    @Test
    void arithmeticTakesNewCasFromSupplier() {
        ItemTransition t = apply(incr(1), item("1", 0, Item.NEVER));
        assertEquals(NEW_CAS, t.next().cas());
        assertEquals(NEW_CAS, ((Result.Number) t.result()).cas());
        assertEquals(1, cas.calls);
    }

    @Test
    void incrementWrapsAtTwoToThe64() {
        ItemTransition t = apply(incr(1), item("18446744073709551615", 0, Item.NEVER));
        assertEquals("0" + " ".repeat(19), text(t.next().value()), "padded to the replaced value's length");
        assertEquals(0, Long.compareUnsigned(0, ((Result.Number) t.result()).value()));
    }

    @Test
    void incrementWrapsPastTwoToThe64ByTheRemainder() {
        // 2^64 - 2 + 5 = 2^64 + 3
        ItemTransition t = apply(incr(5), item(Long.toUnsignedString(-2L), 0, Item.NEVER));
        assertEquals("3" + " ".repeat(19), text(t.next().value()));
    }

    @Test
    void incrementAboveSignedLongRangeStaysUnsigned() {
        ItemTransition t = apply(incr(1), item(Long.toUnsignedString(Long.MAX_VALUE), 0, Item.NEVER));
        long value = ((Result.Number) t.result()).value();
        assertEquals("9223372036854775808", Long.toUnsignedString(value));
        assertEquals("9223372036854775808", text(t.next().value()));
        assertTrue(Long.compareUnsigned(value, Long.MAX_VALUE) > 0);
    }

    @Test
    void incrementByUnsignedDeltaAboveSignedRange() {
        // delta 2^63 is negative as a signed long; it must still add.
        ItemTransition t = apply(incr(Long.MIN_VALUE), item("1", 0, Item.NEVER));
        assertEquals("9223372036854775809", text(t.next().value()));
    }

    @Test
    void decrementSubtracts() {
        ItemTransition t = apply(decr(3), item("10", 0, Item.NEVER));
        assertEquals("7 ", text(t.next().value()), "memcached pads a shorter number with spaces");
        assertEquals(new Result.Number(7, NEW_CAS), t.result());
    }

    @Test
    void decrementFloorsAtZero() {
        ItemTransition t = apply(decr(11), item("10", 0, Item.NEVER));
        assertEquals("0 ", text(t.next().value()));
        assertEquals(0, ((Result.Number) t.result()).value());
    }

    @Test
    void decrementByUnsignedDeltaAboveSignedRangeFloorsAtZero() {
        // Signed subtraction of a negative delta would wrongly increase the value.
        ItemTransition t = apply(decr(-1L), item("5", 0, Item.NEVER));
        assertEquals("0", text(t.next().value()));
    }

    @Test
    void decrementFromAboveSignedRangeComparesUnsigned() {
        ItemTransition t = apply(decr(1), item("18446744073709551615", 0, Item.NEVER));
        assertEquals("18446744073709551614", text(t.next().value()));
    }

    @Test
    void valueWithTrailingSpacesParses() {
        ItemTransition t = apply(incr(1), item("9   ", 0, Item.NEVER));
        assertEquals("10  ", text(t.next().value()));
    }

    @Test
    void aLongerNumberGrowsTheValue() {
        ItemTransition t = apply(incr(1), item("99", 0, Item.NEVER));
        assertEquals("100", text(t.next().value()));
    }

    @Test
    void twentyDigitMaximumParses() {
        assertEquals(-1L, ItemTransition.parseUnsigned(bytes("18446744073709551615")));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "   ", "abc", "12a", "-1", "+-1", "1.0", "0x10",
            "100000000000000000000", "18446744073709551616", "99999999999999999999"})
    void nonDecimalOrOutOfRangeValueIsNonNumeric(String value) {
        assertFailure(apply(incr(1), item(value, 0, Item.NEVER)), Status.NON_NUMERIC);
    }

    @Test
    void parseUnsignedRejectsValueAboveTwoToThe64MinusOne() {
        assertThrows(NumberFormatException.class, () -> ItemTransition.parseUnsigned(bytes("18446744073709551616")));
    }

    @Test
    void arithmeticWithMismatchingCasIsExists() {
        assertFailure(apply(new Operation.Arithmetic(NS, KEY, true, 1, 0, true, Item.NEVER, OLD_CAS + 1),
                item("1", 0, Item.NEVER)), Status.EXISTS);
    }

    @Test
    void arithmeticWithMatchingCasApplies() {
        ItemTransition t = apply(new Operation.Arithmetic(NS, KEY, true, 1, 0, false, Item.NEVER, OLD_CAS),
                item("1", 0, Item.NEVER));
        assertEquals("2", text(t.next().value()));
    }

    @Test
    void existingItemIgnoresArithmeticExpiry() {
        ItemTransition t = apply(new Operation.Arithmetic(NS, KEY, true, 1, 0, true, FUTURE + 99, 0),
                item("1", 12, FUTURE));
        assertEquals(FUTURE, t.next().expiresAt());
        assertEquals(12, t.next().flags());
    }

    // --- touch ---

    @Test
    void touchChangesExpiryKeepingCasAndValue() {
        Item current = item("v", 6, FUTURE);
        ItemTransition t = apply(new Operation.Touch(NS, KEY, FUTURE + 1000), current);
        assertEquals(Effect.PUT, t.effect());
        assertEquals(FUTURE + 1000, t.next().expiresAt());
        assertEquals(OLD_CAS, t.next().cas());
        assertArrayEquals(current.value(), t.next().value());
        assertEquals(6, t.next().flags());
        assertEquals(t.next(), ((Result.Value) t.result()).item());
        assertEquals(0, cas.calls, "touch keeps the CAS, so must not draw a new one");
    }

    @Test
    void touchToNeverRemovesTheExpiry() {
        ItemTransition t = apply(new Operation.Touch(NS, KEY, Item.NEVER), item("v", 0, FUTURE));
        assertEquals(Effect.PUT, t.effect());
        assertEquals(Item.NEVER, t.next().expiresAt());
    }

    @Test
    void touchToThePastRemovesTheItem() {
        ItemTransition t = apply(new Operation.Touch(NS, KEY, PAST), item("v", 0, FUTURE));
        assertEquals(Effect.REMOVE, t.effect());
        assertNull(t.next());
        assertTrue(t.result().ok());
        assertEquals(0, cas.calls);
    }

    @Test
    void touchMissIsNotFound() {
        assertFailure(apply(new Operation.Touch(NS, KEY, FUTURE), null), Status.NOT_FOUND);
    }

    @Test
    void touchOfExpiredItemIsNotFound() {
        assertFailure(apply(new Operation.Touch(NS, KEY, FUTURE), item("v", 0, PAST)), Status.NOT_FOUND);
    }
}
