package kvgate.plugin.shadow;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;
import kvgate.spi.Namespace;
import kvgate.spi.Operation;
import kvgate.spi.StoreMode;
import org.junit.jupiter.api.Test;

class MirrorPolicyTest {
    private static final Namespace NS = Namespace.DEFAULT;

    private static byte[] key(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static Operation get(String key) {
        return new Operation.Get(NS, key(key));
    }

    private static Operation set(String key, long cas) {
        return new Operation.Store(NS, key(key), StoreMode.SET, key("value"), 7, 0, cas);
    }

    @Test
    void aFractionPicksAboutThatShareOfKeysAndAKeysReadsAndWritesTogether() {
        MirrorPolicy policy = MirrorPolicy.of("all", "0.3", true);
        int picked = 0;
        for (int i = 0; i < 10_000; i++) {
            boolean read = policy.mirrors(get("user:" + i));
            assertEquals(read, policy.mirrors(set("user:" + i, 0)), "user:" + i);
            assertEquals(read, policy.mirrors(new Operation.Delete(new Namespace("other"), key("user:" + i), 0)));
            picked += read ? 1 : 0;
        }
        // 3000 expected; the binomial spread is about 46, and the hash is fixed, so this never varies.
        assertTrue(picked > 2800 && picked < 3200, "picked " + picked);
    }

    @Test
    void noneAndAllAreExact() {
        MirrorPolicy none = MirrorPolicy.of("all", "0", true);
        MirrorPolicy all = MirrorPolicy.of("all", "1.0", true);
        for (int i = 0; i < 1000; i++) {
            assertFalse(none.mirrors(get("k" + i)));
            assertTrue(all.mirrors(get("k" + i)));
        }
    }

    @Test
    void operationsChoosesReadsOrWrites() {
        MirrorPolicy reads = MirrorPolicy.of("reads", "1", true);
        MirrorPolicy writes = MirrorPolicy.of("writes", "1", true);
        Operation touch = new Operation.Touch(NS, key("k"), 0);
        Operation tag = new Operation.Tag(NS, key("k"), List.of(key("t")));
        assertTrue(reads.mirrors(get("k")));
        assertFalse(reads.mirrors(set("k", 0)));
        assertFalse(reads.mirrors(touch));
        assertFalse(reads.mirrors(new Operation.Flush(NS, 0)), "a reads-only shadow is never emptied");
        assertFalse(writes.mirrors(get("k")));
        assertTrue(writes.mirrors(set("k", 0)));
        assertTrue(writes.mirrors(touch));
        assertTrue(writes.mirrors(tag));
        assertTrue(writes.mirrors(new Operation.Flush(NS, 0)));
        // A lease get is a read unless it touches the item or makes a placeholder.
        Operation leaseGet = new Operation.LeaseGet(NS, key("k"), null, null, 30_000L);
        Operation vivify = new Operation.LeaseGet(NS, key("k"), null, 60_000L, null);
        assertTrue(reads.mirrors(leaseGet));
        assertFalse(writes.mirrors(leaseGet));
        assertFalse(reads.mirrors(vivify));
        assertTrue(writes.mirrors(vivify));
    }

    @Test
    void namespaceWideReadsAreNeverMirroredAndFlushesAsConfigured() {
        MirrorPolicy policy = MirrorPolicy.of("all", "1", false);
        assertFalse(policy.mirrors(new Operation.Scan(NS, 10)));
        assertFalse(policy.mirrors(new Operation.TaggedKeys(NS, key("t"), false)));
        assertFalse(policy.mirrors(new Operation.Search(NS, List.of(new Operation.Search.Word("w", Set.of("w"))), true, "")));
        assertFalse(policy.mirrors(new Operation.Flush(NS, 0)));
        assertTrue(MirrorPolicy.of("all", "0", true).mirrors(new Operation.Flush(NS, 0)),
                "a flush has no key: the fraction does not apply");
    }

    @Test
    void anInvalidationWithACasIsMirroredWithoutIt() {
        Operation.Invalidate checked = new Operation.Invalidate(NS, key("k"), 42, 5_000L);
        assertTrue(MirrorPolicy.checksCas(checked));
        Operation.Invalidate plain = (Operation.Invalidate) MirrorPolicy.withoutCas(checked);
        assertEquals(0, plain.cas());
        assertEquals(5_000L, plain.expiresAt(), "its new expiry kept");
        assertFalse(MirrorPolicy.checksCas(new Operation.Invalidate(NS, key("k"), 0, null)));
    }

    @Test
    void aCasWriteIsMirroredWithoutItsCas() {
        assertTrue(MirrorPolicy.checksCas(set("k", 42)));
        assertFalse(MirrorPolicy.checksCas(set("k", 0)));
        Operation.Store plain = (Operation.Store) MirrorPolicy.withoutCas(set("k", 42));
        assertEquals(0, plain.cas());
        assertEquals(7, plain.flags());
        assertFalse(plain.keepExpiry());
        Operation.Store keeping = new Operation.Store(NS, key("k"), StoreMode.SET, new byte[] {1}, 7, 0, 42, true);
        assertTrue(((Operation.Store) MirrorPolicy.withoutCas(keeping)).keepExpiry(), "Preserve TTL is mirrored");
        Operation.Delete delete = (Operation.Delete) MirrorPolicy.withoutCas(new Operation.Delete(NS, key("k"), 9));
        assertEquals(0, delete.cas());
        Operation.Arithmetic incr = (Operation.Arithmetic) MirrorPolicy.withoutCas(
                new Operation.Arithmetic(NS, key("k"), true, 5, 1, true, 0, 9));
        assertEquals(0, incr.cas());
        assertEquals(5, incr.delta());
    }

    @Test
    void aWriteMirroredWithoutItsCasKeepsTheCasItChoseAndTheExpiryItSets() {
        Operation.Store store = (Operation.Store) MirrorPolicy.withoutCas(new Operation.Store(NS, key("k"),
                StoreMode.SET, new byte[] {1}, 7, 0, 42, false, false, 1234));
        assertEquals(1234, store.chosenCas(), "the shadow's item gets the CAS the client chose, as the primary's");
        Operation.Arithmetic incr = (Operation.Arithmetic) MirrorPolicy.withoutCas(
                new Operation.Arithmetic(NS, key("k"), true, 5, 1, true, 0, 9, 60_000L, 77));
        assertEquals(60_000L, incr.touchExpiresAt(), "ma's T reaches the shadow");
        assertEquals(77, incr.chosenCas());
        Operation.Invalidate invalidate = (Operation.Invalidate) MirrorPolicy.withoutCas(
                new Operation.Invalidate(NS, key("k"), 42, null, 88));
        assertEquals(88, invalidate.chosenCas());
    }

    @Test
    void aFractionOutsideZeroToOneOrNotANumberIsRefusedNamingTheSetting() {
        for (String bad : List.of("1.5", "-0.1", "NaN", "half", "")) {
            IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                    () -> MirrorPolicy.of("all", bad, true));
            assertTrue(refused.getMessage().startsWith("fraction must be a number from 0.0 to 1.0"),
                    refused.getMessage());
        }
    }
}
