package kvgate.plugin.shadow;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import kvgate.spi.Item;
import kvgate.spi.Result;
import kvgate.spi.Status;
import org.junit.jupiter.api.Test;

class VerdictTest {

    private static Result value(String text, int flags, long cas, long expiresAt) {
        return new Result.Value(new Item(text.getBytes(StandardCharsets.UTF_8), flags, cas, expiresAt));
    }

    @Test
    void readsMatchOnValueAndFlagsWhateverTheirCasAndExpiry() {
        assertEquals(Verdict.MATCHED, Verdict.of(value("v", 3, 1, 0), value("v", 3, 999, 5000)));
        assertEquals(Verdict.MISMATCHED, Verdict.of(value("v", 3, 1, 0), value("w", 3, 1, 0)));
        assertEquals(Verdict.MISMATCHED, Verdict.of(value("v", 3, 1, 0), value("v", 4, 1, 0)));
        assertEquals(Verdict.MISMATCHED, Verdict.of(value("v", 3, 1, 0), value("vv", 3, 1, 0)));
    }

    @Test
    void leaseGetsMatchOnTheItemNotOnWhoWonItsLease() {
        Item item = new Item("v".getBytes(StandardCharsets.UTF_8), 3, 1, 0);
        Item other = new Item("w".getBytes(StandardCharsets.UTF_8), 3, 1, 0);
        assertEquals(Verdict.MATCHED, Verdict.of(new Result.Leased(item, true), new Result.Leased(item, false)));
        assertEquals(Verdict.MISMATCHED, Verdict.of(new Result.Leased(item, true), new Result.Leased(other, true)));
    }

    @Test
    void aMissOnOneSideIsAMismatchAndOnBothAMatch() {
        Result miss = Result.failure(Status.NOT_FOUND);
        assertEquals(Verdict.MISMATCHED, Verdict.of(miss, value("v", 0, 1, 0)));
        assertEquals(Verdict.MISMATCHED, Verdict.of(value("v", 0, 1, 0), miss));
        assertEquals(Verdict.MATCHED, Verdict.of(miss, Result.failure(Status.NOT_FOUND, "other words")));
    }

    @Test
    void writesMatchOnStatusAlone() {
        assertEquals(Verdict.MATCHED, Verdict.of(new Result.Stored(5), new Result.Stored(77)));
        assertEquals(Verdict.MATCHED, Verdict.of(new Result.Removed(null), new Result.Removed(new Item(new byte[1],
                0, 1, 0))));
        assertEquals(Verdict.MISMATCHED, Verdict.of(new Result.Stored(5), Result.failure(Status.EXISTS)));
        assertEquals(Verdict.MATCHED, Verdict.of(Result.failure(Status.NOT_STORED), Result.failure(Status.NOT_STORED)));
        assertEquals(Verdict.MATCHED, Verdict.of(Result.DONE, Result.DONE));
    }

    @Test
    void arithmeticMatchesOnTheNewValueNotTheCas() {
        assertEquals(Verdict.MATCHED, Verdict.of(new Result.Number(10, 1), new Result.Number(10, 2)));
        assertEquals(Verdict.MISMATCHED, Verdict.of(new Result.Number(10, 1), new Result.Number(11, 1)));
    }

    @Test
    void aShadowThatFailsSaysNothingAboutItsDataAndNeitherDoesAFailingPrimary() {
        assertEquals(Verdict.SHADOW_FAILED, Verdict.of(value("v", 0, 1, 0), Result.failure(Status.TEMPORARY_FAILURE)));
        assertEquals(Verdict.SHADOW_FAILED, Verdict.of(value("v", 0, 1, 0), Result.failure(Status.BACKEND_ERROR)));
        assertEquals(Verdict.SHADOW_FAILED, Verdict.of(Result.failure(Status.BACKEND_ERROR),
                Result.failure(Status.TEMPORARY_FAILURE)));
        assertEquals(Verdict.PRIMARY_FAILED, Verdict.of(Result.failure(Status.TEMPORARY_FAILURE), value("v", 0, 1, 0)));
        assertEquals(Verdict.MISMATCHED, Verdict.of(new Result.Stored(1), Result.failure(Status.UNSUPPORTED)),
                "a shadow that cannot do what the primary does is a difference, not an outage");
    }

    @Test
    void twoDifferentSuccessShapesDiffer() {
        assertEquals(Verdict.MISMATCHED, Verdict.of(value("1", 0, 1, 0), new Result.Number(1, 1)));
    }

    @Test
    void onAnItemTheShadowIsBehindOnOnlyADifferenceChanges() {
        assertEquals(Verdict.BEHIND, Verdict.MISMATCHED.givenShadowBehind());
        assertEquals(Verdict.MATCHED, Verdict.MATCHED.givenShadowBehind());
        assertEquals(Verdict.SHADOW_FAILED, Verdict.SHADOW_FAILED.givenShadowBehind());
    }
}
