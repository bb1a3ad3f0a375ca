package kvgate.counter;

import static kvgate.testing.CounterClient.*;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import kvgate.testing.BinaryClient;
import kvgate.testing.CounterClient;
import kvgate.testing.CounterClient.Response;
import kvgate.testing.TestGateway;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * The counter protocol over real sockets: every operation, every error, layouts parsed byte by byte. One suite, run
 * on every counter store by a subclass that starts the gateway on it.
 */
abstract class CounterProtocolSuite {
    /** Set by the subclass before the tests run. */
    static TestGateway gateway;

    @AfterAll
    static void stop() {
        gateway.close();
    }

    static CounterClient client() throws Exception {
        return new CounterClient(gateway.counterPort());
    }

    private static void assertError(Response r, int status, String message) {
        assertEquals(0x91, r.magic());
        assertEquals(status, r.status());
        assertEquals(message, r.text());
    }

    @Test
    void noopEchoesOpcodeAndOpaqueWithAnEmptyBody() throws Exception {
        try (CounterClient c = client()) {
            c.send(frame(NOOP, 0xabcdef01, new byte[0]));
            Response r = c.read();
            assertEquals(0x91, r.magic());
            assertEquals(NOOP, r.opcode());
            assertEquals(0, r.status());
            assertEquals(0, r.reserved());
            assertEquals(0xabcdef01, r.opaque());
            assertEquals(0, r.body().length);
        }
    }

    @Test
    void acquireCreatesGrowsAndRefusesBeyondTheMaximum() throws Exception {
        try (CounterClient c = client()) {
            Response first = c.acquire("acq", 3, 10);
            assertEquals(0, first.status());
            assertEquals(4, first.body().length);
            assertEquals(3, first.u32(0));
            assertEquals(5, c.acquire("acq", 5, 10).u32(0), "the reply is what this request acquired");
            assertEquals(8, c.get("acq").u32(0));
            assertError(c.acquire("acq", 3, 10), 0x21, "Resource not available");
            assertEquals(8, c.get("acq").u32(0), "a refused acquisition changes nothing");
            assertEquals(0, c.acquire("acq", 2, 10).status(), "exactly the maximum is allowed");
            assertEquals(0, c.acquire("acq", 5, 15).status(), "each request states the maximum anew");
            assertEquals(15, c.get("acq").u32(0));
        }
    }

    @Test
    void acquisitionsNearTwoToThe32DoNotWrap() throws Exception {
        try (CounterClient c = client()) {
            assertEquals(0, c.acquire("wrap", 0xfffffff0L, 0xffffffffL).status());
            assertError(c.acquire("wrap", 0x20, 0xffffffffL), 0x21, "Resource not available");
            assertEquals(0xfffffff0L, c.get("wrap").u32(0));
        }
    }

    @Test
    void releaseFollowsTheConnectionsOwnLedger() throws Exception {
        try (CounterClient a = client(); CounterClient b = client()) {
            assertError(a.release("ledger-missing", 1), 0x01, "Not found");
            assertEquals(0, a.acquire("ledger", 4, 10).status());
            assertError(b.release("ledger", 1), 0x22, "Not acquired");
            assertError(b.release("ledger", 0), 0x22, "Not acquired");
            assertError(a.release("ledger", 5), 0x22, "Not acquired");
            Response released = a.release("ledger", 3);
            assertEquals(0, released.status());
            assertEquals(0, released.body().length);
            assertEquals(1, a.get("ledger").u32(0), "release lowers the consumption");
            assertEquals(0, a.release("ledger", 0).status(), "releasing 0 of a counter it holds is fine");
            assertError(a.release("ledger", 2), 0x22, "Not acquired");
            assertEquals(0, a.release("ledger", 1).status());
            // Holding none of it now: as if never acquired, since the reference server erases the entry at 0.
            assertError(a.release("ledger", 0), 0x22, "Not acquired");
            assertEquals(0, a.acquire("ledger", 2, 10).status(), "and it can be acquired again");
            assertEquals(2, a.get("ledger").u32(0));
            assertEquals(0, a.release("ledger", 2).status());
            assertEquals(0, a.get("ledger").u32(0));
        }
    }

    @Test
    void aPipelinedAcquireThenReleaseIsJudgedInOrder() throws Exception {
        try (CounterClient c = client()) {
            c.send(frame(ACQUIRE, 1, acquireBody(2, 5, "pipe")),
                    frame(RELEASE, 2, releaseBody(2, "pipe")),
                    frame(RELEASE, 3, releaseBody(1, "pipe")),
                    frame(GET, 4, name("pipe")));
            assertEquals(0, c.read().status());
            assertEquals(0, c.read().status(), "the release sees the acquisition pipelined before it");
            Response over = c.read();
            assertEquals(3, over.opaque());
            assertEquals(0x22, over.status());
            assertEquals(0, c.read().u32(0));
        }
    }

    @Test
    void closingAConnectionReleasesEverythingItHeldEvenWhenKilled() throws Exception {
        try (CounterClient watcher = client()) {
            CounterClient clean = client();
            clean.acquire("closed", 3, 10);
            clean.acquire("closed-too", 1, 10);
            CounterClient killed = client();
            killed.acquire("closed", 4, 10);
            assertEquals(7, watcher.get("closed").u32(0));
            clean.close();
            killed.abort();
            assertEquals(0, heldOnceReleased(() -> watcher.get("closed").u32(0)));
            assertEquals(0, watcher.get("closed-too").u32(0));
        }
    }

    @Test
    void anAcquireSentJustBeforeTheConnectionClosesIsReleasedByTheClose() throws Exception {
        try (CounterClient watcher = client()) {
            for (int i = 0; i < 20; i++) {
                // Often read together with the end of the stream: the acquire must be carried out before the close
                // releases what the connection holds, or its resources would stay held for ever.
                CounterClient gone = client();
                gone.send(frame(ACQUIRE, 1, acquireBody(2, 100, "last-words")));
                gone.close();
            }
            assertEquals(0, heldOnceReleased(() -> held(watcher, "last-words")),
                    "resources still held after every connection closed");
        }
    }

    /**
     * What {@code held} reads once it reads 0, or after 5 s: a close releases what its connection held after the
     * close is seen, not before the client's close returns.
     */
    private static long heldOnceReleased(Callable<Long> held) throws Exception {
        long deadline = System.currentTimeMillis() + 5000;
        long now = held.call();
        while (now != 0 && System.currentTimeMillis() < deadline) {
            Thread.sleep(20);
            now = held.call();
        }
        return now;
    }

    /** The resources held of a counter: 0 when it is not found. */
    private static long held(CounterClient client, String name) throws Exception {
        Response got = client.get(name);
        return got.status() == 0x01 ? 0 : got.u32(0);
    }

    @Test
    void getOfAMissingCounterIsNotFound() throws Exception {
        try (CounterClient c = client()) {
            assertError(c.get("never-acquired"), 0x01, "Not found");
        }
    }

    @Test
    void malformedRequestsAreInvalidAndTheConnectionGoesOn() throws Exception {
        try (CounterClient c = client()) {
            List<byte[]> bodies = new ArrayList<>();
            bodies.add(frame(ACQUIRE, 1, acquireBody(0, 10, "x")));                      // zero resources
            bodies.add(frame(ACQUIRE, 2, acquireBody(5, 4, "x")));                       // maximum below resources
            bodies.add(frame(ACQUIRE, 3, ByteBuffer.allocate(10).putInt(1).putInt(1).putShort((short) 0).array()));
            bodies.add(frame(ACQUIRE, 4, new byte[9]));                                  // shorter than its fields
            bodies.add(frame(ACQUIRE, 5, ByteBuffer.allocate(12).putInt(1).putInt(1).putShort((short) 5)
                    .put(new byte[] {'a', 'b'}).array()));                             // name runs past the body
            bodies.add(frame(GET, 6, new byte[1]));
            bodies.add(frame(GET, 7, new byte[] {0, 0}));                                // empty name
            bodies.add(frame(RELEASE, 8, new byte[5]));
            bodies.add(frame(RELEASE, 9, ByteBuffer.allocate(6).putInt(1).putShort((short) 0).array()));
            for (byte[] bad : bodies) {
                c.send(bad);
                Response r = c.read();
                assertError(r, 0x04, "Invalid arguments");
                assertEquals(bad[1], (byte) r.opcode());
            }
            c.send(frame(0x77, 0x02, 42, acquireBody(1, 1, "x")));                       // bad magic
            Response badMagic = c.read();
            assertError(badMagic, 0x04, "Invalid arguments");
            assertEquals(42, badMagic.opaque());
            c.send(frame(0x55, 43, new byte[3]));
            Response unknown = c.read();
            assertError(unknown, 0x81, "Unknown command");
            assertEquals(0x55, unknown.opcode());
            assertEquals(43, unknown.opaque());
            assertEquals(0, c.call(NOOP, new byte[0]).status());
        }
    }

    @Test
    void bytesAfterTheFieldsAreIgnoredAndAHugeBodyIsSkippedNotBuffered() throws Exception {
        try (CounterClient c = client()) {
            byte[] acquire = acquireBody(1, 10, "trailing");
            byte[] padded = ByteBuffer.allocate(acquire.length + 200_000).put(acquire).array();
            Response r = c.call(ACQUIRE, padded);
            assertEquals(0, r.status());
            assertEquals(1, c.get("trailing").u32(0));
            assertEquals(0, c.call(NOOP, new byte[0]).status(), "the rest of the long body was skipped");
        }
        try (CounterClient c = client()) {
            c.send(ByteBuffer.allocate(12).put((byte) 0x90).put((byte) 0).putShort((short) 0).putInt(0x7fffffff)
                    .putInt(1).array());
            assertTrue(c.closedByServer(), "a body over the 30 MiB limit closes the connection");
        }
    }

    @Test
    void dumpListsEveryCounterWithItsIntervalMaximumThenAnEmptyTerminator() throws Exception {
        try (CounterClient c = client()) {
            c.acquire("dump-a", 5, 100);
            c.acquire("dump-a", 3, 100);
            c.release("dump-a", 1);
            c.acquire("dump-b", 100, 100);
            c.release("dump-b", 100);
            c.send(frame(DUMP, 77, new byte[0]));
            Map<String, long[]> dumped = new HashMap<>();
            while (true) {
                Response r = c.read();
                assertEquals(DUMP, r.opcode());
                assertEquals(77, r.opaque());
                assertEquals(0, r.status());
                if (r.body().length == 0) {
                    break;
                }
                ByteBuffer body = ByteBuffer.wrap(r.body());
                long current = body.getInt() & 0xffffffffL;
                long max = body.getInt() & 0xffffffffL;
                byte[] name = new byte[body.getShort() & 0xffff];
                body.get(name);
                assertEquals(0, body.remaining());
                dumped.put(new String(name, StandardCharsets.UTF_8), new long[] {current, max});
            }
            assertArrayEquals(new long[] {7, 8}, dumped.get("dump-a"));
            assertArrayEquals(new long[] {0, 100}, dumped.get("dump-b"));
        }
    }

    @Test
    void statsNamesTheReferenceItemsInOrderWithLiveDecimalValues() throws Exception {
        try (CounterClient c = client()) {
            Map<String, String> before = stats(c);
            c.acquire("stats-x", 1, 2);
            c.call(NOOP, new byte[0]);
            Map<String, String> after = stats(c);
            assertEquals(List.of("objects", "total_objects", "used_memory", "conflicts", "gc_count",
                    "last_gc_elapsed", "total_gc_elapsed", "curr_connections", "total_connections", "command:noop",
                    "command:get", "command:acquire", "command:release", "command:stats", "command:dump"),
                    new ArrayList<>(after.keySet()));
            for (String value : after.values()) {
                assertTrue(value.matches("\\d+"), value);
            }
            assertEquals(1, delta(before, after, "command:acquire"));
            assertEquals(1, delta(before, after, "command:noop"));
            assertEquals(1, delta(before, after, "command:stats"));
            assertTrue(Long.parseLong(after.get("curr_connections")) >= 1);
            assertTrue(Long.parseLong(after.get("objects")) >= 1);
        }
    }

    @Test
    void countersAreInvisibleToTheKeyValueProtocols() throws Exception {
        try (CounterClient c = client(); BinaryClient m = new BinaryClient(gateway.port())) {
            c.acquire("shared-name", 1, 5);
            assertEquals(0x0001, m.get("shared-name").status());
            m.set("shared-name", "kv", 0, 0);
            assertEquals(1, c.get("shared-name").u32(0));
        }
    }

    @Test
    void connectionsBeyondCounterMaxConnectionsAreClosed() throws Exception {
        try (TestGateway limited = TestGateway.start(Map.of("counter.max_connections", "1"));
             CounterClient first = new CounterClient(limited.counterPort())) {
            // Served first, so it is counted before the second connects (connections land on several threads).
            assertEquals(0, first.call(NOOP, new byte[0]).status());
            try (CounterClient second = new CounterClient(limited.counterPort())) {
                assertTrue(second.closedByServer());
            }
            assertEquals(0, first.call(NOOP, new byte[0]).status());
        }
    }

    static Map<String, String> stats(CounterClient c) throws Exception {
        return statsOf(c.call(STATS, new byte[0]));
    }

    static Map<String, String> statsOf(Response r) {
        assertEquals(0, r.status());
        ByteBuffer body = ByteBuffer.wrap(r.body());
        Map<String, String> items = new LinkedHashMap<>();
        while (body.hasRemaining()) {
            byte[] name = new byte[body.getShort() & 0xffff];
            byte[] value = new byte[body.getShort() & 0xffff];
            body.get(name).get(value);
            items.put(new String(name, StandardCharsets.US_ASCII), new String(value, StandardCharsets.US_ASCII));
        }
        return items;
    }

    static long delta(Map<String, String> before, Map<String, String> after, String name) {
        return Long.parseLong(after.get(name)) - Long.parseLong(before.get(name));
    }
}
