package kvgate.memcached;

import static kvgate.testing.BinaryClient.*;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import kvgate.testing.BinaryClient;
import kvgate.testing.BinaryClient.Response;
import kvgate.testing.TestGateway;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * memcached binary protocol semantics over a real socket, checked field by field: one suite, run on every backend
 * by a subclass that starts the gateway on it.
 */
abstract class MemcachedProtocolSuite {
    /** Set by the subclass before the tests run. */
    static TestGateway gateway;

    @AfterAll
    static void stop() {
        gateway.close();
    }

    private static BinaryClient client() throws Exception {
        return new BinaryClient(gateway.port());
    }

    @Test
    void setThenGetReturnsValueFlagsAndTheCasOfTheSet() throws Exception {
        try (BinaryClient c = client()) {
            Response set = c.set("round-trip", "hello", 0xcafe, 0);
            assertEquals(0, set.status());
            assertNotEquals(0, set.cas());
            assertEquals(0, set.extras().length + set.key().length + set.value().length);
            Response get = c.get("round-trip");
            assertEquals(0x81, get.magic());
            assertEquals(0, get.status());
            assertEquals("hello", get.valueText());
            assertEquals(0xcafe, get.flags());
            assertEquals(set.cas(), get.cas());
            assertEquals(0, get.key().length, "GET replies carry no key");
        }
    }

    @Test
    void everyMutationGetsANewUniqueCas() throws Exception {
        // One key throughout: a CAS check compares one key's CAS, and a pool of memcached servers numbers each
        // server's items on its own, so only the CAS values of one key are bound to differ.
        try (BinaryClient c = client()) {
            Set<Long> seen = new HashSet<>();
            for (int i = 0; i < 200; i++) {
                assertTrue(seen.add(c.set("unique-cas", "v" + i, 0, 0).cas()), "CAS repeated");
            }
            assertTrue(seen.add(c.call(APPEND, NONE, bytes("unique-cas"), bytes("x"), 0).cas()));
            assertTrue(seen.add(c.set("unique-cas", "1", 0, 0).cas()));
            assertTrue(seen.add(c.call(INCREMENT, arithmeticExtras(1, 0, 0), bytes("unique-cas"), NONE, 0).cas()));
        }
    }

    @Test
    void casIsCheckedBySetReplaceDeleteAppendPrependIncrAndDecr() throws Exception {
        try (BinaryClient c = client()) {
            Map<Integer, byte[]> extrasByOpcode = new HashMap<>();
            extrasByOpcode.put(SET, storeExtras(0, 0));
            extrasByOpcode.put(REPLACE, storeExtras(0, 0));
            extrasByOpcode.put(DELETE, NONE);
            extrasByOpcode.put(APPEND, NONE);
            extrasByOpcode.put(PREPEND, NONE);
            extrasByOpcode.put(INCREMENT, arithmeticExtras(1, 0, 0));
            extrasByOpcode.put(DECREMENT, arithmeticExtras(1, 0, 0));
            for (var entry : extrasByOpcode.entrySet()) {
                int opcode = entry.getKey();
                String key = "cas-check-" + opcode;
                long cas = c.set(key, "10", 0, 0).cas();
                byte[] value = opcode == SET || opcode == REPLACE || opcode == APPEND || opcode == PREPEND
                        ? bytes("5") : NONE;
                Response stale = c.call(opcode, entry.getValue(), bytes(key), value, cas + 1);
                assertEquals(0x0002, stale.status(), "stale CAS for opcode " + opcode);
                assertEquals(0, stale.cas(), "error replies carry no CAS");
                assertEquals("10", c.get(key).valueText(), "a failed CAS must not change the item");
                Response fresh = c.call(opcode, entry.getValue(), bytes(key), value, cas);
                assertEquals(0, fresh.status(), "matching CAS for opcode " + opcode);
                Response missing = c.call(opcode, entry.getValue(), bytes(key + "-missing"), value, cas);
                // memcached: append/prepend need the item; incr/decr create it (a CAS has nothing to compare with).
                int expected = opcode == APPEND || opcode == PREPEND ? 0x0005
                        : opcode == INCREMENT || opcode == DECREMENT ? 0 : 0x0001;
                assertEquals(expected, missing.status(), "CAS on a missing key for opcode " + opcode);
            }
        }
    }

    @Test
    void addReplaceAppendAndPrependFollowMemcachedRules() throws Exception {
        try (BinaryClient c = client()) {
            assertEquals(0x0001, c.call(REPLACE, storeExtras(0, 0), bytes("rules"), bytes("x"), 0).status());
            assertEquals(0x0005, c.call(APPEND, NONE, bytes("rules"), bytes("x"), 0).status());
            assertEquals(0x0005, c.call(PREPEND, NONE, bytes("rules"), bytes("x"), 0).status());
            assertEquals(0, c.call(ADD, storeExtras(7, 0), bytes("rules"), bytes("mid"), 0).status());
            assertEquals(0x0002, c.call(ADD, storeExtras(0, 0), bytes("rules"), bytes("again"), 0).status());
            assertEquals(0x0004, c.call(ADD, storeExtras(0, 0), bytes("rules-cas"), bytes("x"), 99).status(),
                    "an add with a CAS is refused");
            assertEquals(0, c.call(APPEND, NONE, bytes("rules"), bytes(">"), 0).status());
            assertEquals(0, c.call(PREPEND, NONE, bytes("rules"), bytes("<"), 0).status());
            Response get = c.get("rules");
            assertEquals("<mid>", get.valueText());
            assertEquals(7, get.flags(), "append and prepend keep the flags");
            assertEquals(0, c.call(REPLACE, storeExtras(9, 0), bytes("rules"), bytes("new"), 0).status());
            assertEquals(9, c.get("rules").flags());
        }
    }

    @Test
    void deleteRemovesAndRepliesWithoutCas() throws Exception {
        try (BinaryClient c = client()) {
            c.set("deleted", "x", 0, 0);
            Response delete = c.call(DELETE, NONE, bytes("deleted"), NONE, 0);
            assertEquals(0, delete.status());
            assertEquals(0, delete.cas());
            assertEquals(0x0001, c.get("deleted").status());
            assertEquals(0x0001, c.call(DELETE, NONE, bytes("deleted"), NONE, 0).status());
        }
    }

    @Test
    void getMissRepliesNotFoundAndGetkMissNamesTheKey() throws Exception {
        try (BinaryClient c = client()) {
            Response get = c.get("nothing-here");
            assertEquals(0x0001, get.status());
            assertEquals("Not found", get.valueText());
            Response getk = c.call(GETK, NONE, bytes("nothing-here"), NONE, 0);
            assertEquals(0x0001, getk.status());
            assertEquals("nothing-here", getk.keyText());
        }
    }

    @Test
    void quietCommandsAnswerOnlyErrorsAndQuietGetsOnlyHits() throws Exception {
        try (BinaryClient c = client()) {
            c.send(frame(SETQ, storeExtras(3, 0), bytes("quiet"), bytes("v"), 0, 1),
                    frame(GETQ, NONE, bytes("quiet-missing"), NONE, 0, 2),
                    frame(GETKQ, NONE, bytes("quiet"), NONE, 0, 3),
                    frame(ADDQ, storeExtras(0, 0), bytes("quiet"), bytes("v"), 0, 4),
                    frame(DELETEQ, NONE, bytes("quiet-missing"), NONE, 0, 5),
                    frame(INCREMENTQ, arithmeticExtras(1, 5, 0), bytes("quiet-n"), NONE, 0, 6),
                    frame(GATQ, u32(0), bytes("quiet-missing"), NONE, 0, 7),
                    frame(APPENDQ, NONE, bytes("quiet"), bytes("w"), 0, 8),
                    frame(NOOP, NONE, NONE, NONE, 0, 9));
            Response hit = c.read();
            assertEquals(3, hit.opaque(), "the GETKQ hit");
            assertEquals("quiet", hit.keyText());
            assertEquals("v", hit.valueText());
            assertEquals(3, hit.flags());
            Response addExists = c.read();
            assertEquals(4, addExists.opaque());
            assertEquals(0x0002, addExists.status());
            Response deleteMissing = c.read();
            assertEquals(5, deleteMissing.opaque());
            assertEquals(0x0001, deleteMissing.status());
            Response noop = c.read();
            assertEquals(9, noop.opaque(), "successful quiet commands and quiet misses stay silent");
            assertEquals("vw", c.get("quiet").valueText());
            assertEquals("5", c.get("quiet-n").valueText());
        }
    }

    @Test
    void multiGetWithGetkqAndNoopReturnsHitsThenTheNoop() throws Exception {
        try (BinaryClient c = client()) {
            ByteArrayOutputStream batch = new ByteArrayOutputStream();
            for (int i = 0; i < 100; i++) {
                if (i % 3 == 0) {
                    c.set("multi-" + i, "value-" + i, i, 0);
                }
                batch.write(frame(GETKQ, NONE, bytes("multi-" + i), NONE, 0, 1000 + i));
            }
            batch.write(frame(NOOP, NONE, NONE, NONE, 0, 5000));
            c.send(batch.toByteArray());
            for (int i = 0; i < 100; i += 3) {
                Response hit = c.read();
                assertEquals(1000 + i, hit.opaque());
                assertEquals("multi-" + i, hit.keyText());
                assertEquals("value-" + i, hit.valueText());
                assertEquals(i, hit.flags());
            }
            assertEquals(5000, c.read().opaque());
        }
    }

    @Test
    void pipelinedGetsEndingInAMissOrAHitAnswerEachAsItIs() throws Exception {
        try (BinaryClient c = client()) {
            c.set("ends-hit", "h", 0, 0);
            // Pipelined, as one burst each: hits and misses, the last one a miss, then the last one a hit.
            c.send(frame(GET, NONE, bytes("ends-hit"), NONE, 0, 1), frame(GET, NONE, bytes("ends-miss-1"), NONE, 0, 2),
                    frame(GETK, NONE, bytes("ends-miss-2"), NONE, 0, 3));
            assertEquals(List.of("1:0:h", "2:1:", "3:1:ends-miss-2"), List.of(summary(c.read(), false),
                    summary(c.read(), false), summary(c.read(), true)));
            c.send(frame(GETQ, NONE, bytes("ends-miss-1"), NONE, 0, 4), frame(GET, NONE, bytes("ends-miss-2"), NONE,
                    0, 5), frame(GETKQ, NONE, bytes("ends-hit"), NONE, 0, 6), frame(NOOP, NONE, NONE, NONE, 0, 7));
            assertEquals(List.of("5:1:", "6:0:ends-hit", "7:0:"), List.of(summary(c.read(), false),
                    summary(c.read(), true), summary(c.read(), false)));
        }
    }

    /** A reply as {@code opaque:status:value}, or with the key in place of the value. */
    private static String summary(Response reply, boolean key) {
        return reply.opaque() + ":" + reply.status() + ":"
                + (key ? reply.keyText() : reply.status() == 0 ? reply.valueText() : "");
    }

    @Test
    void incrementCreatesWithInitialValueAndExpiryAndRefusesWhenAskedNotToCreate() throws Exception {
        try (BinaryClient c = client()) {
            Response created = c.call(INCREMENT, arithmeticExtras(10, 42, 0), bytes("counter"), NONE, 0);
            assertEquals(0, created.status());
            assertEquals(42, created.number(), "a missing counter starts at the initial value, delta not applied");
            assertEquals(8, created.value().length);
            assertNotEquals(0, created.cas());
            assertEquals(52, c.call(INCREMENT, arithmeticExtras(10, 42, 0), bytes("counter"), NONE, 0).number());
            assertEquals("52", c.get("counter").valueText(), "counters are stored as decimal text");
            Response refused = c.call(INCREMENT, arithmeticExtras(1, 0, 0xffffffff), bytes("no-counter"), NONE, 0);
            assertEquals(0x0001, refused.status());
            assertEquals(0x0001, c.get("no-counter").status());
            // -1 would be 0xffffffff, "do not create"; -2 is an ordinary negative expiry.
            Response expiring = c.call(DECREMENT, arithmeticExtras(1, 5, -2), bytes("gone-counter"), NONE, 0);
            assertEquals(0, expiring.status());
            assertEquals(5, expiring.number());
            assertEquals(0x0001, c.get("gone-counter").status(), "created already expired");
        }
    }

    @Test
    void incrementWrapsAt64BitsAndDecrementStopsAtZero() throws Exception {
        try (BinaryClient c = client()) {
            c.set("wrap", "18446744073709551615", 0, 0);
            Response wrapped = c.call(INCREMENT, arithmeticExtras(2, 0, 0), bytes("wrap"), NONE, 0);
            assertEquals(1, wrapped.number());
            c.set("floor", "3", 0, 0);
            assertEquals(0, c.call(DECREMENT, arithmeticExtras(10, 0, 0), bytes("floor"), NONE, 0).number());
            assertEquals("0", c.get("floor").valueText());
            Response big = c.call(INCREMENT, arithmeticExtras(-1L, 0, 0), bytes("floor"), NONE, 0);
            assertEquals("18446744073709551615", Long.toUnsignedString(big.number()), "deltas are unsigned");
        }
    }

    @Test
    void arithmeticOnNonNumericValuesIsRefused() throws Exception {
        try (BinaryClient c = client()) {
            for (String value : new String[] {"abc", "", "12a", "-5", "18446744073709551616", "+-7"}) {
                c.set("not-a-number", value, 0, 0);
                Response incr = c.call(INCREMENT, arithmeticExtras(1, 0, 0), bytes("not-a-number"), NONE, 0);
                assertEquals(0x0006, incr.status(), "value '" + value + "'");
                assertEquals(value, c.get("not-a-number").valueText());
            }
            // As memcached's strtoull: leading white space, then digits, then the end or white space.
            c.set("padded-number", " 7 ", 0, 0);
            Response padded = c.call(INCREMENT, arithmeticExtras(1, 0, 0), bytes("padded-number"), NONE, 0);
            assertEquals(0, padded.status());
            assertEquals(8, padded.number());
            // memcached rewrites in place, padding with spaces to the old length; the local store writes "8".
            assertEquals("8", c.get("padded-number").valueText().strip());
        }
    }

    @Test
    void expiryIsRelativeUpToThirtyDaysAbsoluteBeyondAndNegativeMeansExpired() throws Exception {
        try (BinaryClient c = client()) {
            long now = System.currentTimeMillis() / 1000;
            // Two seconds, not one: memcached counts whole seconds of its own clock, so an item given one second
            // can lapse at the next tick, a moment after it was set.
            c.set("exp-relative", "x", 0, 2);
            c.set("exp-negative", "x", 0, -1);
            c.set("exp-absolute-past", "x", 0, (int) (now - 10));
            c.set("exp-absolute-future", "x", 0, (int) (now + 3600));
            c.set("exp-thirty-days", "x", 0, 60 * 60 * 24 * 30);
            assertEquals(0, c.get("exp-relative").status());
            assertEquals(0x0001, c.get("exp-negative").status());
            assertEquals(0x0001, c.get("exp-absolute-past").status());
            assertEquals(0, c.get("exp-absolute-future").status());
            assertEquals(0, c.get("exp-thirty-days").status(), "30 days is still relative");
            Thread.sleep(2100);
            assertEquals(0x0001, c.get("exp-relative").status());
            assertEquals(0, c.call(ADD, storeExtras(0, 0), bytes("exp-relative"), bytes("y"), 0).status(),
                    "an expired item can be added again");
        }
    }

    @Test
    void touchAndGetAndTouchChangeExpiryOnly() throws Exception {
        try (BinaryClient c = client()) {
            long cas = c.set("touched", "value", 5, 0).cas();
            Response touch = c.call(TOUCH, u32(1), bytes("touched"), NONE, 0);
            assertEquals(0, touch.status());
            assertEquals(5, touch.flags());
            assertEquals(0, touch.value().length, "touch replies without the value");
            assertEquals(cas, touch.cas(), "touch keeps the CAS");
            Response gat = c.call(GAT, u32(0), bytes("touched"), NONE, 0);
            assertEquals("value", gat.valueText());
            assertEquals(5, gat.flags());
            Thread.sleep(1100);
            assertEquals(0, c.get("touched").status(), "GAT with 0 removed the expiry");
            c.call(TOUCH, u32(-1), bytes("touched"), NONE, 0);
            assertEquals(0x0001, c.get("touched").status());
            assertEquals(0x0001, c.call(TOUCH, u32(0), bytes("touched"), NONE, 0).status());
            c.send(frame(GATQ, u32(0), bytes("touched"), NONE, 0, 77), frame(NOOP, NONE, NONE, NONE, 0, 78));
            assertEquals(78, c.read().opaque(), "a GATQ miss is silent");
        }
    }

    @Test
    void flushRemovesEverythingAndADelayedFlushWaits() throws Exception {
        try (BinaryClient c = client()) {
            c.set("flush-a", "x", 0, 0);
            assertEquals(0, c.call(FLUSH, NONE, NONE, NONE, 0).status());
            assertEquals(0x0001, c.get("flush-a").status());
            c.set("flush-b", "x", 0, 0);
            assertEquals(0, c.call(FLUSH, u32(2), NONE, NONE, 0).status());
            assertEquals(0, c.get("flush-b").status(), "a delayed flush waits");
            Thread.sleep(2500);
            assertEquals(0x0001, c.get("flush-b").status());
            c.set("flush-c", "x", 0, 0);
            c.send(frame(FLUSHQ, NONE, NONE, NONE, 0, 1), frame(NOOP, NONE, NONE, NONE, 0, 2));
            assertEquals(2, c.read().opaque(), "FLUSHQ is silent");
            assertEquals(0x0001, c.get("flush-c").status());
        }
    }

    @Test
    void versionVerbosityNoopAndHelloAnswer() throws Exception {
        try (BinaryClient c = client()) {
            Response version = c.call(VERSION, NONE, NONE, NONE, 0);
            assertTrue(version.valueText().matches("\\d+\\.\\d+\\.\\d+ kvgate/.+"), version.valueText());
            assertEquals(0, c.call(VERBOSITY, u32(1), NONE, NONE, 0).status());
            assertEquals(0, c.call(NOOP, NONE, NONE, NONE, 0).status());
            Response hello = c.call(HELLO, NONE, bytes("test-agent"), new byte[] {0, 0x03, 0, 0x12, 0, 0x0a, 0, 0x07},
                    0);
            assertEquals(0, hello.status());
            assertArrayEquals(new byte[] {0, 0x12, 0, 0x07}, hello.value(),
                    "Collections and XError granted in the order asked; TcpNoDelay and Snappy dropped");
        }
    }

    @Test
    void preserveTtlKeepsTheItemsExpiryOnABackendThatCanAndIsNotSupportedOnOneThatCannot() throws Exception {
        try (BinaryClient c = client()) {
            // What the backend declares is in the stats; what the gateway grants and does must match it.
            boolean keeps = c.stats("").get("backend_capabilities").contains("KEEP_EXPIRY");
            assertArrayEquals(keeps ? new int[] {ALT_REQUEST, PRESERVE_TTL} : new int[] {ALT_REQUEST},
                    c.hello(ALT_REQUEST, PRESERVE_TTL), "PreserveTtl granted only where a backend can keep an expiry");
            int hour = (int) (System.currentTimeMillis() / 1000) + 3600;
            long cas = c.set("preserved", "v1", 0, 3600).cas();
            c.send(altFrame(SET, PRESERVE_TTL_INFO, storeExtras(0, 0), bytes("preserved"), bytes("v2"), 0, 1));
            Response set = c.read();
            int expiry = c.expiry("preserved");
            if (keeps) {
                assertEquals(0, set.status());
                assertEquals("v2", c.get("preserved").valueText());
                assertTrue(Math.abs(expiry - hour) <= 2, "kept: " + expiry + ", not about " + hour);
            } else {
                assertEquals(0x0083, set.status(), "sent all the same: refused without asking the backend");
                Response kept = c.get("preserved");
                assertEquals("v1", kept.valueText(), "nothing written");
                assertEquals(cas, kept.cas());
            }
            // An item the store creates takes the request's expiry either way: refused all the same where the
            // backend cannot keep one, as the gateway cannot know beforehand that there is none.
            c.send(altFrame(SET, PRESERVE_TTL_INFO, storeExtras(0, 0), bytes("preserved-new"), bytes("v"), 0, 2));
            assertEquals(keeps ? 0 : 0x0083, c.read().status());
        }
    }

    @Test
    void quitAnswersThenClosesAndQuitqClosesSilently() throws Exception {
        try (BinaryClient c = client()) {
            c.send(frame(NOOP, NONE, NONE, NONE, 0, 1), frame(QUIT, NONE, NONE, NONE, 0, 2),
                    frame(NOOP, NONE, NONE, NONE, 0, 3));
            assertEquals(1, c.read().opaque());
            Response quit = c.read();
            assertEquals(QUIT, quit.opcode());
            assertEquals(2, quit.opaque());
            assertTrue(c.closedByServer(), "nothing after the quit is served");
        }
        try (BinaryClient c = client()) {
            c.send(frame(QUITQ, NONE, NONE, NONE, 0, 1));
            assertTrue(c.closedByServer());
        }
    }

    @Test
    void statGeneralGroupReportsCountersThatMoveWithTraffic() throws Exception {
        try (BinaryClient c = client()) {
            Map<String, String> before = stats(c, "");
            c.set("stat-key", "v", 0, 0);
            c.get("stat-key");
            c.get("stat-missing");
            Map<String, String> after = stats(c, "");
            for (String name : new String[] {"pid", "uptime", "time", "version", "curr_connections",
                    "total_connections", "cmd_get", "cmd_set", "get_hits", "get_misses", "curr_items"}) {
                assertTrue(after.containsKey(name), "missing stat " + name + " in " + after);
            }
            assertEquals(ProcessHandle.current().pid(), Long.parseLong(after.get("pid")));
            assertEquals(2, delta(before, after, "cmd_get"));
            assertEquals(1, delta(before, after, "get_hits"));
            assertEquals(1, delta(before, after, "get_misses"));
            assertEquals(1, delta(before, after, "cmd_set"));
            assertTrue(Long.parseLong(after.get("curr_connections")) >= 1);
            // The network threads' lag over the last minute, in microseconds, in order (the suite's gateway has
            // been up long enough for probes every 10 ms to have run).
            long p50 = Long.parseLong(after.get("event_loop_lag_p50_us"));
            long p99 = Long.parseLong(after.get("event_loop_lag_p99_us"));
            long p999 = Long.parseLong(after.get("event_loop_lag_p999_us"));
            long max = Long.parseLong(after.get("event_loop_lag_max_us"));
            assertTrue(0 <= p50 && p50 <= p99 && p99 <= p999 && 0 < max, after.toString());
            // A remote backend reports its servers' item counts as of its last poll (within a second or so).
            long deadline = System.currentTimeMillis() + 5000;
            while (Long.parseLong(stats(c, "").get("curr_items")) < 1 && System.currentTimeMillis() < deadline) {
                Thread.sleep(50);
            }
            assertTrue(Long.parseLong(stats(c, "").get("curr_items")) >= 1);
            assertTrue(Math.abs(Long.parseLong(after.get("time")) - System.currentTimeMillis() / 1000) < 5);
            assertEquals("1m", stats(c, "settings").get("max_item_size"));
            assertEquals(0x0001, c.call(STAT, NONE, bytes("no-such-group"), NONE, 0).status());
        }
    }

    @Test
    void pipelinedRequestsAreAnsweredInOrderWithOpaquesEchoed() throws Exception {
        try (BinaryClient c = client()) {
            ByteArrayOutputStream batch = new ByteArrayOutputStream();
            int n = 3000;
            for (int i = 0; i < n; i++) {
                switch (i % 4) {
                    case 0 -> batch.write(frame(SET, storeExtras(i, 0), bytes("pipe-" + i), bytes("v" + i), 0, i));
                    case 1 -> batch.write(frame(GET, NONE, bytes("pipe-" + (i - 1)), NONE, 0, i));
                    case 2 -> batch.write(frame(INCREMENT, arithmeticExtras(1, 0, 0), bytes("pipe-n"), NONE, 0, i));
                    default -> batch.write(frame(NOOP, NONE, NONE, NONE, 0, i));
                }
            }
            c.send(batch.toByteArray());
            long counter = -1;
            for (int i = 0; i < n; i++) {
                Response r = c.read();
                assertEquals(i, r.opaque(), "reply order");
                assertEquals(0, r.status());
                if (i % 4 == 1) {
                    assertEquals("v" + (i - 1), r.valueText(), "a get sees the set pipelined before it");
                } else if (i % 4 == 2) {
                    assertEquals(counter + 1, r.number());
                    counter = r.number();
                }
            }
        }
    }

    @Test
    void burstsOfManyConnectionsSentAtOnceAreEachAnsweredOnTheirOwnConnectionInOrder() throws Exception {
        int connections = 16;
        int pairs = 40;
        List<BinaryClient> clients = new ArrayList<>();
        try {
            for (int c = 0; c < connections; c++) {
                clients.add(client());
            }
            // Every connection's burst is sent before any reply is read: the gateway has them all to serve at once,
            // and each connection's replies must still be its own, in its order.
            for (int c = 0; c < connections; c++) {
                ByteArrayOutputStream burst = new ByteArrayOutputStream();
                for (int i = 0; i < pairs; i++) {
                    burst.write(frame(SET, storeExtras(c, 0), bytes("loop-" + c + "-" + i), bytes(c + "/" + i), 0,
                            2 * i));
                    burst.write(frame(GET, NONE, bytes("loop-" + c + "-" + i), NONE, 0, 2 * i + 1));
                }
                clients.get(c).send(burst.toByteArray());
            }
            for (int c = 0; c < connections; c++) {
                for (int i = 0; i < 2 * pairs; i++) {
                    Response r = clients.get(c).read();
                    assertEquals(i, r.opaque(), "connection " + c + ": reply order");
                    assertEquals(0, r.status(), "connection " + c + ", request " + i);
                    if (i % 2 == 1) {
                        assertEquals(c + "/" + i / 2, r.valueText(), "connection " + c + " reads its own set");
                        assertEquals(c, r.flags(), "connection " + c + "'s flags");
                    }
                }
            }
        } finally {
            for (BinaryClient client : clients) {
                client.close();
            }
        }
    }

    @Test
    void aBinaryKeyAndValueRoundTripByteForByte() throws Exception {
        try (BinaryClient c = client()) {
            byte[] key = new byte[250];
            byte[] value = new byte[70_000];
            for (int i = 0; i < key.length; i++) {
                key[i] = (byte) (i + 1);
            }
            new java.util.Random(7).nextBytes(value);
            assertEquals(0, c.call(SET, storeExtras(0, 0), key, value, 0).status());
            Response get = c.call(GETK, NONE, key, NONE, 0);
            assertArrayEquals(key, get.key());
            assertArrayEquals(value, get.value());
        }
    }

    static Map<String, String> stats(BinaryClient c, String group) throws Exception {
        return c.stats(group);
    }

    private static long delta(Map<String, String> before, Map<String, String> after, String name) {
        return Long.parseLong(after.get(name)) - Long.parseLong(before.get(name));
    }
}
