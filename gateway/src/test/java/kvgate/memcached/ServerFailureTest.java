package kvgate.memcached;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import kvgate.memcached.binary.BinaryStatus;
import kvgate.testing.BinaryClient;
import kvgate.testing.BinaryClient.Response;
import kvgate.testing.MemcachedServers;
import kvgate.testing.TestGateway;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * One memcached server of a pool of three dies (SIGKILL) under client traffic, then comes back empty on its port.
 * Its keys must fail at once with a temporary failure, never read as misses (a miss would mean the key moved to
 * another server, hiding the outage), while the other servers' keys are served throughout; after the restart the
 * gateway uses the server again on its own. Real memcached processes, real sockets, a real gateway.
 */
@Tag("servers")
class ServerFailureTest {
    private static final int TIMEOUT_MS = 500;
    private static final int RETRY_MS = 300;
    private static final int FAILURE_LIMIT = 2;
    private static final int KEYS = 300;
    /** The server that is killed. */
    private static final int VICTIM = 1;
    /**
     * A reply to an ejected server's key slower than this waited for something (a timeout, a connection attempt)
     * instead of failing at once as ejection promises.
     */
    private static final long FAST_MILLIS = TIMEOUT_MS / 2;
    /** Every read gives up after this, so a request the gateway never answers fails the test instead of hanging it. */
    private static final int READ_BOUND_MS = 4 * TIMEOUT_MS;
    /** How long polls for an expected state wait before the test fails. */
    private static final long DEADLINE_MS = 5000;
    private static final int TEMPORARY_FAILURE = BinaryStatus.TEMPORARY_FAILURE.code();
    private static final int INTERNAL_ERROR = BinaryStatus.INTERNAL_ERROR.code();
    private static final int NOT_FOUND = BinaryStatus.KEY_NOT_FOUND.code();

    private MemcachedServers servers;
    private TestGateway gateway;
    /** The server holding each key, as the servers themselves report it. */
    private final int[] serverOf = new int[KEYS];

    @BeforeEach
    void fillAPoolOfThree() throws Exception {
        servers = MemcachedServers.start(3);
        gateway = TestGateway.start(Map.of("backend", "memcached",
                "memcached.servers", servers.serverList(),
                "memcached.timeout_ms", Integer.toString(TIMEOUT_MS),
                "memcached.retry_ms", Integer.toString(RETRY_MS),
                "memcached.failure_limit", Integer.toString(FAILURE_LIMIT)));
        try (BinaryClient client = client()) {
            for (int i = 0; i < KEYS; i++) {
                assertEquals(0, client.set(key(i), value(i), 0, 0).status(), key(i));
            }
        }
        // Default-namespace keys are stored unchanged, so each server can say which keys it holds.
        Arrays.fill(serverOf, -1);
        int[] held = new int[3];
        for (int server = 0; server < 3; server++) {
            try (BinaryClient direct = new BinaryClient(servers.port(server), READ_BOUND_MS)) {
                for (int i = 0; i < KEYS; i++) {
                    Response read = direct.get(key(i));
                    if (read.status() == 0) {
                        assertEquals(-1, serverOf[i], key(i) + " on two servers");
                        assertEquals(value(i), read.valueText());
                        serverOf[i] = server;
                        held[server]++;
                    }
                }
            }
        }
        for (int i = 0; i < KEYS; i++) {
            assertTrue(serverOf[i] >= 0, key(i) + " on no server");
        }
        for (int count : held) {
            assertTrue(count > KEYS / 10, "keys per server " + Arrays.toString(held));
        }
    }

    @AfterEach
    void stop() throws Exception {
        if (gateway != null) {
            gateway.close();
        }
        if (servers != null) {
            servers.close();
        }
    }

    @Test
    void killedServerFailsFastForItsKeysOnlyAndServesThemAgainAfterRestart() throws Exception {
        try (BinaryClient client = client()) {
            Map<String, String> before = stats(client);
            assertEquals("3", before.get("servers"));
            assertEquals("0", before.get("servers_ejected"));
        }
        Traffic traffic = new Traffic();
        List<Thread> threads = List.of(
                new Thread(traffic::singleRequests, "traffic-single-1"),
                new Thread(traffic::singleRequests, "traffic-single-2"),
                new Thread(traffic::multiGets, "traffic-multi-get"));
        threads.forEach(Thread::start);
        try {
            awaitTrue(() -> traffic.requests.get() >= 300 || !traffic.problems.isEmpty(), "traffic before the kill");

            servers.kill(VICTIM);
            traffic.killedAt = System.nanoTime();
            try (BinaryClient client = client()) {
                awaitStat(client, "servers_ejected", "1");
                traffic.ejectedAt = System.nanoTime();

                // Every key once from here, with the traffic still running: the dead server's fail at once.
                for (int i = 0; i < KEYS; i++) {
                    long start = System.nanoTime();
                    Response read = client.get(key(i));
                    long millis = millisSince(start);
                    if (dead(i)) {
                        assertEquals(TEMPORARY_FAILURE, read.status(), key(i) + " lives on the dead server");
                        assertTrue(millis < FAST_MILLIS, key(i) + " took " + millis + " ms on an ejected server");
                        Response write = client.set(key(i), "lost", 0, 0);
                        assertEquals(TEMPORARY_FAILURE, write.status(), "set of " + key(i));
                    } else {
                        assertEquals(0, read.status(), key(i) + " lives on a server that is up");
                        assertEquals(value(i), read.valueText());
                    }
                }
                Map<String, String> down = stats(client);
                assertEquals("3", down.get("servers"));
                // Probes run every retry interval meanwhile; only an answered one ends the ejection.
                assertEquals("1", down.get("servers_ejected"), "the ejection lasts while the probes fail");
            }
            // The dead server's keys were not written elsewhere by the failed sets either.
            for (int server = 0; server < 3; server++) {
                if (server != VICTIM) {
                    try (BinaryClient direct = new BinaryClient(servers.port(server), READ_BOUND_MS)) {
                        for (int i = 0; i < KEYS; i++) {
                            if (dead(i)) {
                                assertEquals(NOT_FOUND, direct.get(key(i)).status(), key(i) + " moved to " + server);
                            }
                        }
                    }
                }
            }
            awaitTrue(() -> traffic.deadFailedFast.get() >= 100 && traffic.liveServedAfterEjection.get() >= 100
                    || !traffic.problems.isEmpty(), "traffic on both kinds of keys after the ejection");
        } finally {
            traffic.running = false;
            for (Thread thread : threads) {
                thread.join(2L * READ_BOUND_MS);
                assertFalse(thread.isAlive(), thread.getName() + " did not stop");
            }
        }
        assertTrue(traffic.problems.isEmpty(), traffic.problems.size() + " broken promises under traffic, first: "
                + traffic.problems.peek());

        servers.restart(VICTIM);
        long restarted = System.nanoTime();
        int first = firstDeadKey();
        try (BinaryClient client = client()) {
            // Until the next probe finds the server, its keys still fail at once; then they are served again.
            while (true) {
                Response write = client.set(key(first), value(first), 0, 0);
                if (write.status() == 0) {
                    break;
                }
                assertEquals(TEMPORARY_FAILURE, write.status(), "set of " + key(first) + " while reconnecting");
                assertTrue(millisSince(restarted) < DEADLINE_MS, "no recovery within " + DEADLINE_MS + " ms");
                Thread.sleep(10);
            }
            long recoveryMillis = millisSince(restarted);
            // A probe every retry interval: the server is back within about one interval, a few at most.
            assertTrue(recoveryMillis <= 5L * RETRY_MS, "recovered after " + recoveryMillis + " ms");
            for (int i = 0; i < KEYS; i++) {
                if (dead(i)) {
                    assertEquals(0, client.set(key(i), value(i), 0, 0).status(), "set of " + key(i) + " after restart");
                }
            }
            for (int i = 0; i < KEYS; i++) {
                Response read = client.get(key(i));
                assertEquals(0, read.status(), key(i) + " after restart");
                assertEquals(value(i), read.valueText());
            }
            awaitStat(client, "servers_ejected", "0");
        }
        try (BinaryClient direct = new BinaryClient(servers.port(VICTIM), READ_BOUND_MS)) {
            for (int i = 0; i < KEYS; i++) {
                if (dead(i)) {
                    assertEquals(value(i), direct.get(key(i)).valueText(), key(i) + " back on its own server");
                }
            }
        }
    }

    @Test
    void aWriteLeftWithoutReplyIsAnInternalErrorWhileReadsAndUnsentWritesAreTemporaryFailures() throws Exception {
        List<Integer> dead = new ArrayList<>();
        for (int i = 0; i < KEYS && dead.size() < 3; i++) {
            if (dead(i)) {
                dead.add(i);
            }
        }
        servers.pause(VICTIM, true);
        try (BinaryClient client = client()) {
            // Written, then timed out: the hung server may still carry the set out, so its outcome is unknown.
            assertEquals(INTERNAL_ERROR, client.set(key(dead.get(0)), "maybe", 0, 0).status());
            // A read has no outcome to lose: retrying it is safe. This second timeout ejects the server...
            assertEquals(TEMPORARY_FAILURE, client.get(key(dead.get(1))).status());
            // ...and a write that is never sent is a temporary failure, at once.
            long start = System.nanoTime();
            assertEquals(TEMPORARY_FAILURE, client.set(key(dead.get(2)), "never", 0, 0).status());
            assertTrue(millisSince(start) < FAST_MILLIS, "an ejected server's write took " + millisSince(start)
                    + " ms");
        } finally {
            servers.pause(VICTIM, false);
        }
    }

    @Test
    void pipelinedQuietRequestsAnswerLiveKeysAndFailDeadOnesAloud() throws Exception {
        List<Integer> live = new ArrayList<>();
        List<Integer> dead = new ArrayList<>();
        for (int i = 0; i < KEYS; i++) {
            (dead(i) ? dead : live).add(i);
        }
        servers.kill(VICTIM);
        try (BinaryClient client = client()) {
            // Two live keys become misses, which quiet gets rightly pass over in silence.
            List<Integer> missing = List.of(live.get(0), live.get(1));
            for (int i : missing) {
                assertEquals(0, client.call(BinaryClient.DELETE, BinaryClient.NONE, BinaryClient.bytes(key(i)),
                        BinaryClient.NONE, 0).status());
            }
            // Each failed request counts (a lost connection, then refused ones): the server is ejected after
            // failure_limit of them, not after some background timer.
            int failedRequests = 0;
            while (!"1".equals(stats(client).get("servers_ejected"))) {
                assertTrue(failedRequests < FAILURE_LIMIT, "not ejected after " + failedRequests + " failures");
                assertEquals(TEMPORARY_FAILURE, client.get(key(dead.get(0))).status());
                failedRequests++;
            }

            for (int opcode : new int[] {BinaryClient.GETKQ, BinaryClient.GETQ}) {
                // Live hits, live misses and dead keys interleaved in one pipeline, closed by a noop.
                List<Integer> batch = new ArrayList<>();
                for (int n = 0; n < 10; n++) {
                    batch.add(live.get(2 + n));
                    batch.add(dead.get(n));
                }
                batch.add(5, missing.get(0));
                batch.add(15, missing.get(1));
                List<byte[]> frames = new ArrayList<>();
                for (int i : batch) {
                    frames.add(BinaryClient.frame(opcode, BinaryClient.NONE, BinaryClient.bytes(key(i)),
                            BinaryClient.NONE, 0, i));
                }
                // Quiet stores are silent only when they succeed: the dead server's must be answered.
                int deadStore = dead.get(10);
                int liveStore = live.get(20);
                frames.add(BinaryClient.frame(BinaryClient.SETQ, BinaryClient.storeExtras(0, 0),
                        BinaryClient.bytes(key(deadStore)), BinaryClient.bytes("lost"), 0, deadStore));
                frames.add(BinaryClient.frame(BinaryClient.SETQ, BinaryClient.storeExtras(0, 0),
                        BinaryClient.bytes(key(liveStore)), BinaryClient.bytes("changed"), 0, liveStore));
                int noopOpaque = 1_000_000 + opcode;
                frames.add(BinaryClient.frame(BinaryClient.NOOP, BinaryClient.NONE, BinaryClient.NONE,
                        BinaryClient.NONE, 0, noopOpaque));

                long start = System.nanoTime();
                client.send(frames.toArray(byte[][]::new));
                Map<Integer, Response> answered = new HashMap<>();
                List<Integer> order = new ArrayList<>();
                while (true) {
                    Response reply = client.read();
                    if (reply.opaque() == noopOpaque) {
                        assertEquals(BinaryClient.NOOP, reply.opcode());
                        break;
                    }
                    assertNull(answered.put(reply.opaque(), reply), "two replies to " + reply.opaque());
                    order.add(reply.opaque());
                }
                long millis = millisSince(start);
                assertTrue(millis < FAST_MILLIS, "the pipeline took " + millis + " ms");

                List<Integer> expectedOrder = new ArrayList<>();
                for (int i : batch) {
                    if (!missing.contains(i)) {
                        expectedOrder.add(i);
                    }
                }
                expectedOrder.add(deadStore);
                assertEquals(expectedOrder, order, "replies in request order, none for misses or stored SETQs");
                for (int i : batch) {
                    if (missing.contains(i)) {
                        continue;
                    }
                    Response reply = answered.get(i);
                    assertEquals(opcode, reply.opcode(), key(i));
                    if (dead(i)) {
                        assertEquals(TEMPORARY_FAILURE, reply.status(), key(i) + " lives on the dead server");
                    } else {
                        assertEquals(0, reply.status(), key(i) + " lives on a server that is up");
                        assertEquals(value(i), reply.valueText());
                        assertEquals(opcode == BinaryClient.GETKQ ? key(i) : "", reply.keyText());
                    }
                }
                assertEquals(BinaryClient.SETQ, answered.get(deadStore).opcode());
                assertEquals(TEMPORARY_FAILURE, answered.get(deadStore).status(), "SETQ to the dead server");
                Response changed = client.get(key(liveStore));
                assertEquals("changed", changed.valueText(), "the silent SETQ to a live server was stored");
            }
        }
    }

    /**
     * Client connections that keep reading and writing through the gateway and note every broken promise instead
     * of failing in their own thread, where an assertion would go unseen.
     */
    private final class Traffic {
        final Queue<String> problems = new ConcurrentLinkedQueue<>();
        final AtomicLong requests = new AtomicLong();
        final AtomicLong deadFailedFast = new AtomicLong();
        final AtomicLong liveServedAfterEjection = new AtomicLong();
        final AtomicLong writesLost = new AtomicLong();
        volatile boolean running = true;
        /** When the killed server's process was gone: no request started later may succeed on it. */
        volatile long killedAt = Long.MAX_VALUE;
        /** When the gateway reported the ejection: requests started later must fail fast. */
        volatile long ejectedAt = Long.MAX_VALUE;

        /** Single gets and sets of random keys, one at a time. */
        void singleRequests() {
            try (BinaryClient client = client()) {
                ThreadLocalRandom random = ThreadLocalRandom.current();
                while (running) {
                    int i = random.nextInt(KEYS);
                    boolean set = random.nextInt(4) == 0;
                    long start = System.nanoTime();
                    Response reply = set ? client.set(key(i), value(i), 0, 0) : client.get(key(i));
                    check(i, reply, set ? null : value(i), start, "single " + (set ? "set" : "get"));
                }
            } catch (IOException e) {
                problems.add("no reply within " + READ_BOUND_MS + " ms or connection lost: " + e);
            }
        }

        /** Pipelined quiet multi-gets of random keys on all servers, each closed by a noop. */
        void multiGets() {
            try (BinaryClient client = client()) {
                ThreadLocalRandom random = ThreadLocalRandom.current();
                int round = 0;
                while (running) {
                    int[] batch = random.ints(0, KEYS).distinct().limit(8).toArray();
                    List<byte[]> frames = new ArrayList<>();
                    for (int i : batch) {
                        frames.add(BinaryClient.frame(BinaryClient.GETKQ, BinaryClient.NONE,
                                BinaryClient.bytes(key(i)), BinaryClient.NONE, 0, i));
                    }
                    int noopOpaque = KEYS + round++;
                    frames.add(BinaryClient.frame(BinaryClient.NOOP, BinaryClient.NONE, BinaryClient.NONE,
                            BinaryClient.NONE, 0, noopOpaque));
                    long start = System.nanoTime();
                    client.send(frames.toArray(byte[][]::new));
                    Map<Integer, Response> answered = new HashMap<>();
                    for (Response reply = client.read(); reply.opaque() != noopOpaque; reply = client.read()) {
                        answered.put(reply.opaque(), reply);
                    }
                    for (int i : batch) {
                        Response reply = answered.get(i);
                        if (reply == null) {
                            // Every key was written, so a quiet get passing one over reports a miss.
                            problems.add("multi-get passed over " + key(i) + " (server " + serverOf[i] + ")");
                        } else {
                            check(i, reply, value(i), start, "multi-get");
                        }
                    }
                }
            } catch (IOException e) {
                problems.add("no reply within " + READ_BOUND_MS + " ms or connection lost: " + e);
            }
        }

        /** Checks one reply; {@code expected} is the value a get must read, null for a set. */
        private void check(int i, Response reply, String expected, long start, String what) {
            requests.incrementAndGet();
            long millis = millisSince(start);
            String context = what + " of " + key(i) + " (server " + serverOf[i] + ", " + millis + " ms)";
            if (!dead(i)) {
                if (reply.status() != 0) {
                    problems.add(context + ": status " + reply.status() + " from a server that is up");
                } else if (expected != null && !expected.equals(reply.valueText())) {
                    problems.add(context + ": read " + reply.valueText());
                } else if (start > ejectedAt) {
                    liveServedAfterEjection.incrementAndGet();
                }
                return;
            }
            if (reply.status() == 0) {
                if (start > killedAt) {
                    problems.add(context + ": served by a killed server");
                } else if (expected != null && !expected.equals(reply.valueText())) {
                    problems.add(context + ": read " + reply.valueText());
                }
            } else if (reply.status() == TEMPORARY_FAILURE) {
                if (start > ejectedAt) {
                    if (millis >= FAST_MILLIS) {
                        problems.add(context + ": too slow for an ejected server");
                    } else {
                        deadFailedFast.incrementAndGet();
                    }
                }
            } else if (reply.status() == INTERNAL_ERROR && expected == null && start <= ejectedAt) {
                // A set in flight when the server died: it may have been carried out, so its outcome is unknown.
                writesLost.incrementAndGet();
            } else if (reply.status() == NOT_FOUND) {
                problems.add(context + ": a silent miss, as if the key had moved");
            } else {
                problems.add(context + ": status " + reply.status());
            }
        }
    }

    private BinaryClient client() throws IOException {
        return new BinaryClient(gateway.port(), READ_BOUND_MS);
    }

    private boolean dead(int i) {
        return serverOf[i] == VICTIM;
    }

    private int firstDeadKey() {
        for (int i = 0; i < KEYS; i++) {
            if (dead(i)) {
                return i;
            }
        }
        throw new AssertionError("no key on server " + VICTIM);
    }

    private static String key(int i) {
        return "failover-" + i;
    }

    private static String value(int i) {
        return "value-" + i;
    }

    private static long millisSince(long startNanos) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
    }

    /** The gateway's general stats, through the memcached protocol's STAT. */
    private static Map<String, String> stats(BinaryClient client) throws IOException {
        client.send(BinaryClient.frame(BinaryClient.STAT, BinaryClient.NONE, BinaryClient.NONE, BinaryClient.NONE,
                0, 0));
        Map<String, String> stats = new HashMap<>();
        for (Response line = client.read(); line.key().length > 0; line = client.read()) {
            assertEquals(0, line.status());
            stats.put(line.keyText(), line.valueText());
        }
        return stats;
    }

    private static void awaitStat(BinaryClient client, String name, String expected) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(DEADLINE_MS);
        String last = null;
        while (System.nanoTime() < deadline) {
            last = stats(client).get(name);
            if (expected.equals(last)) {
                return;
            }
            Thread.sleep(5);
        }
        throw new AssertionError("stat " + name + " is " + last + ", not " + expected + ", after " + DEADLINE_MS
                + " ms");
    }

    private static void awaitTrue(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(DEADLINE_MS);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("no " + what + " within " + DEADLINE_MS + " ms");
            }
            Thread.sleep(5);
        }
    }
}
