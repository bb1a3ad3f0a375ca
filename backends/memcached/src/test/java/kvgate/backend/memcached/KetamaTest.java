package kvgate.backend.memcached;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class KetamaTest {

    @Test
    void placesKeysAtTwemproxysReferencePoints() {
        // Placements observed with nutcracker 0.5.0 (distribution ketama, hash md5) over this exact server list.
        Ketama ketama = new Ketama(ServerAddress.parseList("127.0.0.1:21301:1,127.0.0.1:21302:2,127.0.0.1:21303:1"));
        int[] expected = {2, 2, 2, 1, 0, 0, 1, 2, 1, 1};
        for (int i = 0; i < expected.length; i++) {
            assertEquals(expected[i], ketama.serverFor(("k" + i).getBytes(StandardCharsets.US_ASCII)), "k" + i);
        }
    }

    @Test
    void pointsWithTheHighBitSetSortAfterTheOthers() {
        // A signed sort of the circle sends every key above 2^31 to the wrong server; with one server per half of
        // the key space both servers must get a fair share.
        Ketama ketama = new Ketama(ServerAddress.parseList("127.0.0.1:21301,127.0.0.1:21302"));
        int[] counts = new int[2];
        for (int i = 0; i < 10_000; i++) {
            counts[ketama.serverFor(("key-" + i).getBytes(StandardCharsets.US_ASCII))]++;
        }
        assertTrue(counts[0] > 4000 && counts[1] > 4000, counts[0] + " / " + counts[1]);
    }

    @Test
    void weightsShareTheKeys() {
        Ketama ketama = new Ketama(ServerAddress.parseList("10.0.0.1:11211:1,10.0.0.2:11211:3"));
        int[] counts = new int[2];
        for (int i = 0; i < 20_000; i++) {
            counts[ketama.serverFor(("key-" + i).getBytes(StandardCharsets.US_ASCII))]++;
        }
        assertTrue(counts[1] > 2 * counts[0], counts[0] + " / " + counts[1]);
    }

    @Test
    void removingAServerMovesOnlyItsKeys() {
        List<ServerAddress> three = ServerAddress.parseList("a:1,b:2,c:3");
        Ketama before = new Ketama(three);
        Ketama after = new Ketama(List.of(three.get(0), three.get(2)));
        for (int i = 0; i < 5_000; i++) {
            byte[] key = ("key-" + i).getBytes(StandardCharsets.US_ASCII);
            int was = before.serverFor(key);
            if (was != 1) {
                assertEquals(was == 0 ? 0 : 1, after.serverFor(key), "key-" + i + " moved although its server stayed");
            }
        }
    }
}
