package kvgate.memcached;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Base64;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import kvgate.testing.BinaryClient;
import kvgate.testing.MpdbClient;
import kvgate.testing.OkuyamaClient;
import kvgate.testing.TestGateway;
import kvgate.testing.TextClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * memcached's text protocol over a real socket, reply by reply: one suite, run on every backend by a subclass that
 * starts the gateway on it. Each test uses keys of its own, so the suite shares one gateway.
 */
abstract class TextProtocolSuite {
    /** Set by the subclass before the tests run, with {@link #SETTINGS}. */
    static TestGateway gateway;
    /** MPDB's collection default is the memcached clients' namespace, so MPDB reads the same items. */
    static final Map<String, String> SETTINGS = Map.of("mpdb.namespace_prefix", "");
    /** Whether the backend's reads tell an item's expiry (memcached's do not); a subclass sets it. */
    static boolean readsTellExpiry = true;
    /** Whether the backend keeps leases (stale items, recache wins); a subclass sets it. */
    static boolean keepsLeases = false;
    /** Whether the backend gives an item a CAS the client chose (meta E); a subclass sets it. */
    static boolean takesChosenCas = false;
    private static final AtomicInteger UNIQUE = new AtomicInteger();
    TextClient client;

    @AfterAll
    static void stop() {
        gateway.close();
        readsTellExpiry = true;
        keepsLeases = false;
        takesChosenCas = false;
    }

    @BeforeEach
    void connect() throws Exception {
        client = new TextClient(gateway.port());
    }

    @AfterEach
    void disconnect() throws Exception {
        client.close();
    }

    private static String fresh(String name) {
        return name + "-" + UNIQUE.incrementAndGet() + "-" + System.nanoTime();
    }

    @Test
    void storageCommandsAnswerAsMemcachedDoes() throws Exception {
        String key = fresh("store");
        assertEquals("NOT_STORED\r\n", client.store("replace", key, 0, 0, "x"));
        assertEquals("NOT_STORED\r\n", client.store("append", key, 0, 0, "x"));
        assertEquals("STORED\r\n", client.store("add", key, 7, 0, "mid"));
        assertEquals("NOT_STORED\r\n", client.store("add", key, 0, 0, "again"));
        assertEquals("STORED\r\n", client.store("append", key, 99, 0, "-end"));
        assertEquals("STORED\r\n", client.store("prepend", key, 99, 0, "start-"));
        assertEquals("VALUE " + key + " 7 13\r\nstart-mid-end\r\nEND\r\n", client.call("get " + key + "\r\n"),
                "append and prepend keep the flags");
        assertEquals("STORED\r\n", client.store("replace", key, 4294967295L, 0, "r"));
        assertEquals("VALUE " + key + " 4294967295 1\r\nr\r\nEND\r\n", client.call("get " + key + "\r\n"),
                "flags are 32 unsigned bits");
    }

    @Test
    void casComparesWithTheUniqueGetsRead() throws Exception {
        String key = fresh("cas");
        assertEquals("NOT_FOUND\r\n", client.call("cas " + key + " 0 0 1 12345\r\nx\r\n"));
        client.store("set", key, 0, 0, "one");
        long unique = client.unique(key);
        assertEquals("EXISTS\r\n", client.call("cas " + key + " 0 0 1 " + (unique + 1) + "\r\nx\r\n"));
        assertEquals("STORED\r\n", client.call("cas " + key + " 3 0 3 " + unique + "\r\ntwo\r\n"));
        assertEquals("EXISTS\r\n", client.call("cas " + key + " 0 0 5 " + unique + "\r\nthree\r\n"), "used once");
        long next = client.unique(key);
        assertNotEquals(unique, next);
        assertEquals("VALUE " + key + " 3 3 " + Long.toUnsignedString(next) + "\r\ntwo\r\nEND\r\n",
                client.call("gets " + key + "\r\n"));
    }

    @Test
    void aMultiGetAnswersHitsInKeyOrder() throws Exception {
        String a = fresh("a");
        String b = fresh("b");
        client.store("set", a, 1, 0, "A");
        client.store("set", b, 2, 0, "B");
        assertEquals("VALUE " + b + " 2 1\r\nB\r\nVALUE " + a + " 1 1\r\nA\r\nVALUE " + b + " 2 1\r\nB\r\nEND\r\n",
                client.call("get " + b + " " + fresh("miss") + " " + a + " " + b + "\r\n"));
        assertEquals("END\r\n", client.call("get " + fresh("none") + " " + fresh("none") + "\r\n"));
    }

    @Test
    void pipelinedRequestsAreAnsweredInOrderAndNoreplyIsSilent() throws Exception {
        String key = fresh("pipe");
        StringBuilder requests = new StringBuilder();
        for (int i = 0; i < 50; i++) {
            requests.append("set ").append(key).append(" 0 0 ").append(Integer.toString(i).length())
                    .append(i % 2 == 0 ? " noreply" : "").append("\r\n").append(i).append("\r\n");
            requests.append("get ").append(key).append("\r\n");
        }
        client.send(requests.toString());
        for (int i = 0; i < 50; i++) {
            if (i % 2 == 1) {
                assertEquals("STORED\r\n", client.read());
            }
            assertEquals("VALUE " + key + " 0 " + Integer.toString(i).length() + "\r\n" + i + "\r\nEND\r\n",
                    client.read());
        }
    }

    @Test
    void arithmeticAsMemcachedDoesIt() throws Exception {
        String key = fresh("n");
        assertEquals("NOT_FOUND\r\n", client.call("incr " + key + " 1\r\n"), "no counter is created");
        client.store("set", key, 5, 0, "100");
        assertEquals("105\r\n", client.call("incr " + key + " 5\r\n"));
        assertEquals("99\r\n", client.call("decr " + key + " 6\r\n"));
        assertEquals("VALUE " + key + " 5 3\r\n99 \r\nEND\r\n", client.call("get " + key + "\r\n"),
                "the shorter number padded to the value's length, flags kept");
        assertEquals("0\r\n", client.call("decr " + key + " 1000\r\n"));
        assertEquals("18446744073709551615\r\n", client.call("incr " + key + " 18446744073709551615\r\n"));
        assertEquals("1\r\n", client.call("incr " + key + " 2\r\n"), "wraps at 2^64");
        client.store("set", key, 0, 0, "abc");
        assertEquals("CLIENT_ERROR cannot increment or decrement non-numeric value\r\n",
                client.call("incr " + key + " 1\r\n"));
        assertEquals("CLIENT_ERROR invalid numeric delta argument\r\n", client.call("incr " + key + " -1\r\n"));
    }

    @Test
    void expiryTouchAndGetAndTouch() throws Exception {
        String key = fresh("ttl");
        client.store("set", key, 0, 1, "short");
        String kept = fresh("kept");
        client.store("set", kept, 0, 1, "touched");
        assertEquals("TOUCHED\r\n", client.call("touch " + kept + " 100\r\n"));
        String gat = fresh("gat");
        client.store("set", gat, 9, 1, "g");
        assertEquals("VALUE " + gat + " 9 1\r\ng\r\nEND\r\n", client.call("gat 100 " + gat + "\r\n"));
        Thread.sleep(2200);
        assertNull(client.get(key), "expired");
        assertEquals("touched", client.get(kept));
        assertEquals("g", client.get(gat));
        assertEquals("NOT_FOUND\r\n", client.call("touch " + key + " 100\r\n"));
        client.store("set", key, 0, -1, "past");
        assertNull(client.get(key), "a negative expiry is already expired");
    }

    @Test
    void deleteAndItsHoldTime() throws Exception {
        String key = fresh("del");
        assertEquals("NOT_FOUND\r\n", client.call("delete " + key + "\r\n"));
        client.store("set", key, 0, 0, "x");
        assertEquals("CLIENT_ERROR bad command line format.  Usage: delete <key> [noreply]\r\n",
                client.call("delete " + key + " 5\r\n"));
        assertEquals("DELETED\r\n", client.call("delete " + key + " 0\r\n"));
        assertNull(client.get(key));
    }

    @Test
    void anItemWrittenOverTextIsTheSameItemOverBinaryOkuyamaAndMpdb() throws Exception {
        String key = fresh("cross");
        assertEquals("STORED\r\n", client.store("set", key, 0xcafe, 0, "from text ✓"));
        long unique = client.unique(key);
        try (BinaryClient binary = new BinaryClient(gateway.port());
             OkuyamaClient okuyama = new OkuyamaClient(gateway.okuyamaPort())) {
            BinaryClient.Response read = binary.get(key);
            assertEquals(0, read.status());
            assertEquals("from text ✓", read.valueText());
            assertEquals(0xcafe, read.flags());
            assertEquals(unique, read.cas(), "one CAS over both protocols");
            assertEquals("2,true," + OkuyamaClient.b64("from text ✓"), okuyama.call("2," + OkuyamaClient.b64(key)));
            String back = fresh("back");
            assertEquals(0, binary.set(back, "from binary", 12, 0).status());
            assertEquals("VALUE " + back + " 12 11\r\nfrom binary\r\nEND\r\n", client.call("get " + back + "\r\n"));
            String fromOkuyama = fresh("okuyama");
            assertEquals("1,true,OK", okuyama.call("1," + OkuyamaClient.b64(fromOkuyama) + ",(B),0,"
                    + OkuyamaClient.b64("from okuyama")));
            assertEquals("from okuyama", client.get(fromOkuyama));
        }
        try (MpdbClient mpdb = new MpdbClient(gateway.mpdbPort())) {
            MpdbClient.Reply read = mpdb.call(MpdbClient.get(1, "default." + key));
            assertEquals("from text ✓", read.result().get("default." + key).value(), read.toString());
            String fromMpdb = fresh("mpdb");
            assertEquals("", mpdb.call(MpdbClient.insert(2, Map.of("default." + fromMpdb, "from mpdb"))).error());
            assertEquals("from mpdb", client.get(fromMpdb));
        }
    }

    @Test
    void aValueOverTheLimitIsRefusedAndASetRemovesTheOldValue() throws Exception {
        String key = fresh("big");
        client.store("set", key, 0, 0, "old");
        String big = "v".repeat(1024 * 1024 + 1);
        assertEquals("SERVER_ERROR object too large for cache\r\n", client.store("set", key, 0, 0, big));
        assertNull(client.get(key), "a set too large for the cache must not leave the old value readable");
        client.store("set", key, 0, 0, "old");
        assertEquals("SERVER_ERROR object too large for cache\r\n", client.store("add", key, 0, 0, big));
        assertEquals("old", client.get(key), "only a set removes it");
    }

    @Test
    void flushAllEmptiesTheDefaultCollection() throws Exception {
        String key = fresh("flush");
        client.store("set", key, 0, 0, "x");
        assertEquals("OK\r\n", client.call("flush_all\r\n"));
        assertNull(client.get(key));
        client.store("set", key, 0, 0, "y");
        assertEquals("OK\r\n", client.call("flush_all 1\r\n"));
        assertEquals("y", client.get(key), "a delayed flush waits");
        Thread.sleep(2200);
        assertNull(client.get(key));
    }

    @Test
    void statsVersionAndVerbosity() throws Exception {
        String stats = client.call("stats\r\n");
        assertTrue(stats.startsWith("STAT pid ") && stats.contains("STAT cmd_get ") && stats.endsWith("END\r\n"),
                stats);
        assertTrue(client.call("stats settings\r\n").contains("STAT memcached.text true\r\n"));
        assertEquals("ERROR\r\n", client.call("stats nonsense\r\n"));
        assertEquals("END\r\n", client.call("stats slabs\r\n"), "no slabs: an empty group, as monitoring expects");
        assertEquals("END\r\n", client.call("stats items\r\n"));
        assertTrue(client.call("version\r\n").startsWith("VERSION 1.6."));
        assertEquals("OK\r\n", client.call("verbosity 1\r\n"));
    }

    @Test
    void metaCommandsWorkOnTheSameItems() throws Exception {
        String key = fresh("meta");
        assertEquals("HD\r\n", client.call("ms " + key + " 5 F9 T0\r\nhello\r\n"));
        assertEquals("VALUE " + key + " 9 5\r\nhello\r\nEND\r\n", client.call("get " + key + "\r\n"));
        long unique = client.unique(key);
        assertEquals("VA 5 f9 s5 c" + Long.toUnsignedString(unique) + " Oq7 k" + key + "\r\nhello\r\n",
                client.call("mg " + key + " f s v c Oq7 k\r\n"));
        assertEquals("EX\r\n", client.call("ms " + key + " 1 C" + (unique + 1) + "\r\nx\r\n"));
        assertEquals("NS\r\n", client.call("ms " + key + " 1 ME\r\nx\r\n"), "add of a key there");
        assertEquals("HD\r\n", client.call("ms " + key + " 2 MA C" + unique + "\r\n!!\r\n"));
        assertEquals("hello!!", client.get(key));
        // C on mg: the value comes back only to a client whose CAS is not the item's.
        String appended = Long.toUnsignedString(client.unique(key));
        assertEquals("HD c" + appended + "\r\n", client.call("mg " + key + " v c C" + appended + "\r\n"),
                "the client's copy is current");
        assertEquals("VA 7\r\nhello!!\r\n", client.call("mg " + key + " v C" + Long.toUnsignedString(unique)
                + "\r\n"), "the client's copy is older");
        assertEquals("HD\r\n", client.call("mg " + key + " T100\r\n"));
        String ttl = client.call("mg " + key + " t\r\n");
        if (readsTellExpiry) {
            assertTrue(ttl.equals("HD t100\r\n") || ttl.equals("HD t99\r\n"), ttl);
        } else {
            assertEquals("CLIENT_ERROR invalid flag\r\n", ttl, "a backend whose reads do not tell the expiry");
        }
        assertEquals("HD k" + key + "\r\n", client.call("md " + key + " k\r\n"));
        assertEquals("EN\r\n", client.call("mg " + key + " v\r\n"));
        client.send("mg " + key + " v q\r\nmd " + key + " q\r\nmn\r\n");
        assertEquals("NF\r\n", client.read(), "q hides a miss of mg, not one of md");
        assertEquals("MN\r\n", client.read());
    }

    @Test
    void metaArithmeticAndBinaryKeys() throws Exception {
        String key = fresh("count");
        assertEquals("NF\r\n", client.call("ma " + key + "\r\n"));
        assertEquals("VA 2\r\n10\r\n", client.call("ma " + key + " N0 J10 v\r\n"), "created with J");
        assertEquals("VA 2 Oa\r\n13\r\n", client.call("ma " + key + " D3 v Oa\r\n"));
        assertEquals("VA 1\r\n3\r\n", client.call("ma " + key + " MD D10 v\r\n"));
        assertEquals("3 ", client.get(key), "padded as memcached pads it");
        String binary = Base64.getEncoder().encodeToString(new byte[] {(byte) 0xff, 0, 1, ' ', '\n'});
        assertEquals("HD\r\n", client.call("ms " + binary + " 3 b\r\nbin\r\n"));
        assertEquals("VA 3 k" + binary + " b\r\nbin\r\n", client.call("mg " + binary + " b v k\r\n"));
    }

    @Test
    void metaFlagsThatNeedItemStateTheBackendDoesNotKeepAreRefused() throws Exception {
        String key = fresh("state");
        client.store("set", key, 0, 0, "x");
        for (String flags : keepsLeases ? new String[] {"h", "l"} : new String[] {"N30", "R30", "h", "l"}) {
            assertEquals("CLIENT_ERROR invalid flag\r\n", client.call("mg " + key + " v " + flags + "\r\n"), flags);
        }
        if (!keepsLeases) {
            assertEquals("CLIENT_ERROR invalid or duplicate flag\r\n", client.call("md " + key + " I\r\n"));
            assertEquals("CLIENT_ERROR invalid flag\r\n", client.call("ms " + key + " 1 C1 I\r\ny\r\n"));
        }
        assertEquals("VA 1\r\nx\r\n", client.call("mg " + key + " v I\r\n"), "I means nothing to mg");
        assertEquals("x", client.get(key), "nothing was done");
    }

    @Test
    void metaWritesGiveTheItemTheCasTheClientChoseWhereTheBackendTakesIt() throws Exception {
        String key = fresh("versioned");
        if (!takesChosenCas) {
            assertEquals("CLIENT_ERROR invalid flag\r\n", client.call("ms " + key + " 1 E5\r\nx\r\n"));
            assertEquals("CLIENT_ERROR invalid or duplicate flag\r\n", client.call("ma " + key + " N0 E5\r\n"));
            assertEquals("EN\r\n", client.call("mg " + key + " v\r\n"), "nothing was stored");
            return;
        }
        // A version number from the client's own store, one beyond 2^53 and one beyond 2^63 (unsigned).
        for (String version : new String[] {"1700000000123456", "9007199254740993", "18446744073709551557"}) {
            assertEquals("HD c" + version + "\r\n", client.call("ms " + key + " 2 E" + version + " c\r\nv1\r\n"));
            assertEquals("VA 2 c" + version + "\r\nv1\r\n", client.call("mg " + key + " v c\r\n"));
            assertEquals("VALUE " + key + " 0 2 " + version + "\r\nv1\r\nEND\r\n",
                    client.call("gets " + key + "\r\n"));
            // The CAS survives a touch, and a write that does not choose one gives the item another.
            assertEquals("HD c" + version + "\r\n", client.call("mg " + key + " T100 c\r\n"));
            assertEquals("HD\r\n", client.call("ms " + key + " 2 C" + version + "\r\nv2\r\n"), "C with it");
            String next = client.call("mg " + key + " c\r\n");
            assertTrue(next.startsWith("HD c") && !next.equals("HD c" + version + "\r\n"), next);
        }
        // After a chosen CAS just below 2^53, where Lua's numbers stop telling n from n + 1, the writes that follow
        // still get CAS values that all differ.
        String near = fresh("near");
        client.call("ms " + near + " 1 E9007199254740976\r\nx\r\n");
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < 20; i++) {
            String stored = client.call("ms " + near + " 1 c\r\nx\r\n");
            assertTrue(seen.add(stored), "write " + i + " repeated " + stored);
        }
        // A late writer's value with an older CAS is kept stale, the order told exactly above 2^53.
        assertEquals("HD\r\n", client.call("ms " + near + " 1 E9007199254740995\r\ny\r\n"));
        assertEquals("HD\r\n", client.call("ms " + near + " 1 C9007199254740994 I\r\nz\r\n"), "older: stale");
        assertEquals("VA 1 X W\r\nz\r\n", client.call("mg " + near + " v\r\n"));
        assertEquals("HD c42\r\n", client.call("ma " + fresh("n") + " N0 J5 E42 c\r\n"), "a counter created");
        String counter = fresh("n");
        client.store("set", counter, 0, 0, "5");
        assertEquals("VA 1 c43\r\n6\r\n", client.call("ma " + counter + " E43 c v\r\n"), "a counter changed");
        assertEquals("HD\r\n", client.call("md " + counter + " I E44\r\n"), "an invalidation");
        assertEquals("VA 1 c44 X W\r\n6\r\n", client.call("mg " + counter + " c v\r\n"), "stale, its new CAS");
        assertEquals("HD\r\n", client.call("md " + counter + " E45\r\n"), "E means nothing to a plain delete");
        assertEquals("EN\r\n", client.call("mg " + counter + " v\r\n"));
        assertEquals("HD c46 W\r\n", client.call("mg " + fresh("v") + " c N30 E46\r\n"), "an item vivified");
        for (String bad : new String[] {"E0", "Ex", "E18446744073709551616"}) {
            assertEquals("CLIENT_ERROR bad token in command line format\r\n",
                    client.call("ms " + key + " 1 " + bad + "\r\nx\r\n"), bad);
        }
    }

    @Test
    void metaArithmeticSetsAndTellsTheExpiryWhereTheBackendKeepsIt() throws Exception {
        String key = fresh("counted");
        client.store("set", key, 0, 0, "10");
        if (!readsTellExpiry) {
            for (String flags : new String[] {"T30", "t", "N0 T30"}) {
                assertEquals("CLIENT_ERROR invalid or duplicate flag\r\n",
                        client.call("ma " + key + " v " + flags + "\r\n"), flags);
            }
            assertEquals("10", client.get(key), "nothing was done");
            return;
        }
        assertEquals("VA 2 t-1\r\n11\r\n", client.call("ma " + key + " v t\r\n"), "t of an item never expiring");
        String touched = client.call("ma " + key + " T100 t v\r\n");
        assertTrue(touched.equals("VA 2 t100\r\n12\r\n") || touched.equals("VA 2 t99\r\n12\r\n"), touched);
        String read = client.call("mg " + key + " t v\r\n");
        assertTrue(read.equals("VA 2 t100\r\n12\r\n") || read.equals("VA 2 t99\r\n12\r\n"), read);
        assertEquals("HD t-1\r\n", client.call("ma " + key + " T0 t\r\n"), "T0: never expires again");
        // A created item takes N's expiry, or T's when T follows N; an existing one takes T's alone.
        String created = fresh("created");
        String madeWithN = client.call("ma " + created + " T30 N200 J7 t v\r\n");
        assertTrue(madeWithN.equals("VA 1 t200\r\n7\r\n") || madeWithN.equals("VA 1 t199\r\n7\r\n"),
                madeWithN);
        String other = fresh("created");
        String madeWithT = client.call("ma " + other + " N200 T30 J7 t v\r\n");
        assertTrue(madeWithT.equals("VA 1 t30\r\n7\r\n") || madeWithT.equals("VA 1 t29\r\n7\r\n"), madeWithT);
        assertEquals("HD\r\n", client.call("ma " + key + " T-1\r\n"), "an expiry in the past");
        assertEquals("EN\r\n", client.call("mg " + key + " v\r\n"), "leaves no item");
        assertEquals("NF\r\n", client.call("ma " + key + " T30 t\r\n"), "T alone creates nothing");
    }
}
