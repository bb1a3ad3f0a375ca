package kvgate.plugin.shadow;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import kvgate.spi.Namespace;
import kvgate.spi.Operation;
import kvgate.spi.Result;
import kvgate.spi.StoreMode;
import org.junit.jupiter.api.Test;

class BehindKeysTest {
    private static final Namespace OTHER = new Namespace("other");

    private static Operation set(Namespace namespace, String key) {
        return new Operation.Store(namespace, key.getBytes(StandardCharsets.UTF_8), StoreMode.SET, new byte[0], 0, 0,
                0);
    }

    private static Operation read(Namespace namespace, String key) {
        return new Operation.Get(namespace, key.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void aReadSkippedOrFailedLeavesNothingBehind() {
        BehindKeys behind = new BehindKeys(10);
        behind.fellBehind(read(Namespace.DEFAULT, "k"));
        assertFalse(behind.isBehind(read(Namespace.DEFAULT, "k")));
    }

    @Test
    void aKeyIsBehindInItsNamespaceOnlyAndARefusedSetDoesNotLevelIt() {
        BehindKeys behind = new BehindKeys(10);
        behind.fellBehind(set(Namespace.DEFAULT, "k"));
        assertTrue(behind.isBehind(read(Namespace.DEFAULT, "k")));
        assertFalse(behind.isBehind(read(OTHER, "k")));
        behind.matched(set(Namespace.DEFAULT, "k"), Result.failure(kvgate.spi.Status.NOT_STORED));
        assertTrue(behind.isBehind(read(Namespace.DEFAULT, "k")), "neither store took it");
        behind.matched(set(Namespace.DEFAULT, "k"), new Result.Stored(1));
        assertFalse(behind.isBehind(read(Namespace.DEFAULT, "k")));
    }

    @Test
    void aFlushSkippedPutsItsNamespaceBehindUntilAnImmediateFlushOfItMatches() {
        BehindKeys behind = new BehindKeys(10);
        behind.fellBehind(set(OTHER, "k"));
        behind.fellBehind(set(Namespace.DEFAULT, "k"));
        behind.fellBehind(new Operation.Flush(Namespace.DEFAULT, 0));
        assertTrue(behind.isBehind(read(Namespace.DEFAULT, "never written")));
        behind.matched(new Operation.Flush(Namespace.DEFAULT, 60_000), new Result.Done());
        assertTrue(behind.isBehind(read(Namespace.DEFAULT, "never written")), "a delayed flush has not emptied it");
        behind.matched(new Operation.Flush(Namespace.DEFAULT, 0), new Result.Done());
        assertFalse(behind.isBehind(read(Namespace.DEFAULT, "never written")));
        assertFalse(behind.isBehind(read(Namespace.DEFAULT, "k")));
        assertTrue(behind.isBehind(read(OTHER, "k")), "another namespace is not flushed");
    }

    @Test
    void atMostMaxKeysAreRemembered() {
        BehindKeys behind = new BehindKeys(100);
        for (int i = 0; i < 10_000; i++) {
            behind.fellBehind(set(Namespace.DEFAULT, "k" + i));
        }
        assertTrue(behind.keysRemembered() <= 100, behind.keysRemembered() + " remembered");
        assertTrue(behind.keysRemembered() > 0);
    }
}
