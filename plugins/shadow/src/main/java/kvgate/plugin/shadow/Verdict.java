package kvgate.plugin.shadow;

import java.util.Arrays;
import kvgate.spi.Item;
import kvgate.spi.Result;
import kvgate.spi.Status;

/**
 * How the shadow's answer to a mirrored operation compares with the primary's; each verdict is one of the node's
 * counters. Statuses are compared for every operation; beyond them, what the two stores hold: the value bytes and
 * flags of a read or touch, and the new value of an arithmetic. CAS values are not compared (each store makes its
 * own), nor expiry times (stores keep them at different resolutions), nor the removed item of a delete (a memcached
 * backend cannot tell it).
 */
enum Verdict {
    /** Same status, and the same value, flags or number where the answer carries one. */
    MATCHED("matched"),
    /** A different status, value, flags or number. */
    MISMATCHED("mismatched"),
    /**
     * The shadow failed in a way that says nothing about its data: an exception, a temporary failure, a backend
     * error, or no answer within the node's timeout.
     */
    SHADOW_FAILED("shadow_failed"),
    /** The shadow answered but the primary failed so (temporary failure, backend error): nothing to compare with. */
    PRIMARY_FAILED("primary_failed"),
    /**
     * A difference on an item the shadow is known to be behind on, as a mirrored write of it was skipped or failed
     * ({@link BehindKeys}): not the shadow's mismatch.
     */
    BEHIND("behind"),
    /**
     * A read whose answers differ while a write of its key raced it (unanswered by the primary when the read was
     * picked, or picked after it): either store may rightly hold either value ({@link ReadOrder}).
     */
    UNDECIDABLE("undecidable");

    private final String counter;

    Verdict(String counter) {
        this.counter = counter;
    }

    /** The name of the node's counter of this verdict. */
    String counter() {
        return counter;
    }

    static Verdict of(Result primary, Result shadow) {
        if (failedUnknowably(shadow)) {
            return SHADOW_FAILED;
        }
        if (failedUnknowably(primary)) {
            return PRIMARY_FAILED;
        }
        return same(primary, shadow) ? MATCHED : MISMATCHED;
    }

    /** This verdict on an item the shadow is known to be behind on: a difference is no mismatch of the shadow's. */
    Verdict givenShadowBehind() {
        return this == MISMATCHED ? BEHIND : this;
    }

    /** A failure that is the store's trouble, not an answer about the item. */
    static boolean failedUnknowably(Result result) {
        Status status = result.status();
        return status == Status.TEMPORARY_FAILURE || status == Status.BACKEND_ERROR;
    }

    private static boolean sameItem(Item primary, Item shadow) {
        return primary.flags() == shadow.flags() && Arrays.equals(primary.value(), shadow.value());
    }

    private static boolean same(Result primary, Result shadow) {
        if (primary.status() != shadow.status()) {
            return false;
        }
        if (primary instanceof Result.Value p && shadow instanceof Result.Value s) {
            return sameItem(p.item(), s.item());
        }
        if (primary instanceof Result.Leased p && shadow instanceof Result.Leased s) {
            // Each store hands out its own leases: the items are compared, not who won them.
            return sameItem(p.item(), s.item());
        }
        if (primary instanceof Result.Number p && shadow instanceof Result.Number s) {
            return p.value() == s.value();
        }
        // Equal statuses and no data to compare, or two success shapes that differ (a backend answering a get
        // with something else is a difference worth seeing).
        return primary.getClass() == shadow.getClass();
    }
}
