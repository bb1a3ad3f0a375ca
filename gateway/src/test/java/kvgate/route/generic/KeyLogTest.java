package kvgate.route.generic;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class KeyLogTest {
    private static byte[] key(String text) {
        return text.getBytes(StandardCharsets.ISO_8859_1);
    }

    private static byte[] log(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] part : parts) {
            out.writeBytes(part);
        }
        return out.toByteArray();
    }

    @Test
    void replayKeepsFirstPlacesAndAppliesRemovals() {
        byte[] log = log(KeyLog.added(List.of(key("a"), key("b"))), KeyLog.added(List.of(key("a"))),
                KeyLog.removed(List.of(key("b"))), KeyLog.added(List.of(key("c"), key("b"))));
        KeyLog.Replay replay = KeyLog.replay(log);
        assertEquals(List.of("a", "c", "b"), new ArrayList<>(replay.keys()));
        assertEquals(6, replay.entries());
        assertTrue(replay.contains(key("c")));
        assertFalse(replay.contains(key("d")));
    }

    @Test
    void thenReplaysMoreEntriesAfterAReplayAndLeavesItAlone() {
        KeyLog.Replay replay = KeyLog.replay(KeyLog.added(List.of(key("a"), key("b"))));
        KeyLog.Replay same = replay.then(log(KeyLog.added(List.of(key("a"))), KeyLog.removed(List.of(key("z")))));
        assertEquals(replay.keys(), same.keys(), "a key listed again and one never listed removed change nothing");
        assertEquals(4, same.entries());
        KeyLog.Replay more = replay.then(log(KeyLog.removed(List.of(key("a"))), KeyLog.added(List.of(key("c")))));
        assertEquals(List.of("b", "c"), new ArrayList<>(more.keys()));
        assertEquals(List.of("a", "b"), new ArrayList<>(replay.keys()), "the first replay is left as it was");
    }

    @Test
    void keysMayHoldAnyBytes() {
        byte[] odd = {0, '+', '-', (byte) 0xff, '\n'};
        KeyLog.Replay replay = KeyLog.replay(KeyLog.added(List.of(odd, new byte[0])));
        assertEquals(2, replay.keys().size());
        assertTrue(replay.contains(odd));
    }

    @Test
    void aDamagedTailIsIgnoredNotFatal() {
        byte[] whole = KeyLog.added(List.of(key("first"), key("second")));
        KeyLog.Replay cut = KeyLog.replay(Arrays.copyOf(whole, whole.length - 2));
        assertEquals(List.of("first"), new ArrayList<>(cut.keys()));
        byte[] garbled = whole.clone();
        garbled[10] = 'x'; // the second entry's kind
        assertEquals(List.of("first"), new ArrayList<>(KeyLog.replay(garbled).keys()));
        assertEquals(0, KeyLog.replay(new byte[] {'+', 0x7f, 0, 0, 0}).entries(), "length past the end");
    }

    @Test
    void aLogOfManyRemovalsIsWastefulAndItsListingIsNot() {
        List<byte[]> keys = new ArrayList<>();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (int i = 0; i < 20; i++) {
            out.writeBytes(KeyLog.added(List.of(key("k" + i))));
            out.writeBytes(KeyLog.removed(List.of(key("k" + i))));
        }
        keys.add(key("survivor"));
        out.writeBytes(KeyLog.added(keys));
        KeyLog.Replay replay = KeyLog.replay(out.toByteArray());
        assertTrue(replay.wasteful());
        KeyLog.Replay compact = KeyLog.replay(KeyLog.listing(keys));
        assertEquals(replay.keys(), compact.keys());
        assertFalse(compact.wasteful());
    }
}
