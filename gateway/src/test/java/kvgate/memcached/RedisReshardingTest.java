package kvgate.memcached;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import kvgate.memcached.binary.BinaryStatus;
import kvgate.testing.BinaryClient;
import kvgate.testing.BinaryClient.Response;
import kvgate.testing.CounterClient;
import kvgate.testing.RedisServers;
import kvgate.testing.TestGateway;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Redis Cluster resharding under the gateway. While a slot migrates, Redis refuses a script whose keys are split
 * between the two nodes with TRYAGAIN; the gateway tries such a write again until the slot has moved, so that a
 * client sees its write done, not a temporary failure, and never out of its order.
 */
@Tag("servers")
class RedisReshardingTest {
    private static final int READ_BOUND_MS = 10_000;

    /** One slot half moved: the item's index shard on the importing node, the item itself still on the other. */
    private record HalfMoved(int slot, int source, int target, String sourceId, String targetId) {
    }

    @Test
    void aWriteToAHalfMovedSlotIsDoneOnceTheSlotHasMoved() throws Exception {
        try (RedisServers servers = RedisServers.cluster(2);
             TestGateway gateway = TestGateway.start(waitingLong(servers));
             BinaryClient client = new BinaryClient(gateway.port(), READ_BOUND_MS)) {
            assertEquals(0, client.set("moving", "v0", 0, 0).status());
            HalfMoved slot = halfMove(servers, item("moving"));
            CompletableFuture<Void> moved = finishLater(servers, slot, 500);
            long started = System.nanoTime();
            Response write = client.set("moving", "v1", 0, 0);
            long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
            moved.get(10, TimeUnit.SECONDS);
            assertEquals(0, write.status(), "status 0x" + Integer.toHexString(write.status()) + " after " + millis
                    + " ms: " + write.valueText());
            assertTrue(millis >= 400, "the write waited for the slot: " + millis + " ms");
            assertEquals("v1", client.get("moving").valueText());
            assertFalse(redisKey(servers, slot.target(), item("moving")).isEmpty(), "the item is on the new node");
        }
    }

    @Test
    void operationsOnAHeldItemWaitBehindItsWriteAndRunInTheirOrder() throws Exception {
        try (RedisServers servers = RedisServers.cluster(2);
             TestGateway gateway = TestGateway.start(waitingLong(servers));
             BinaryClient client = new BinaryClient(gateway.port(), READ_BOUND_MS);
             BinaryClient other = new BinaryClient(gateway.port(), READ_BOUND_MS)) {
            assertEquals(0, client.set("ordered", "v0", 0, 0).status());
            assertEquals(0, client.set("elsewhere", "e0", 0, 0).status());
            HalfMoved slot = halfMove(servers, item("ordered"));
            CompletableFuture<Void> moved = finishLater(servers, slot, 1500);
            client.send(BinaryClient.frame(BinaryClient.SET, BinaryClient.storeExtras(0, 0),
                    BinaryClient.bytes("ordered"), BinaryClient.bytes("v1"), 0, 1));
            Thread.sleep(150); // refused by now, and held for its retry
            client.send(BinaryClient.frame(BinaryClient.APPEND, BinaryClient.NONE, BinaryClient.bytes("ordered"),
                            BinaryClient.bytes("+v2"), 0, 2),
                    BinaryClient.frame(BinaryClient.GET, BinaryClient.NONE, BinaryClient.bytes("ordered"),
                            BinaryClient.NONE, 0, 3));
            // An item of another slot is not held up meanwhile.
            long started = System.nanoTime();
            assertEquals("e0", other.get("elsewhere").valueText());
            assertTrue(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started) < 1000,
                    "another slot's item waited");
            assertFalse(moved.isDone(), "the slot moved before the check");
            for (int opaque = 1; opaque <= 3; opaque++) {
                Response reply = client.read();
                assertEquals(opaque, reply.opaque());
                assertEquals(0, reply.status(), "request " + opaque + ": " + reply.valueText());
                if (opaque == 3) {
                    assertEquals("v1+v2", reply.valueText());
                }
            }
            moved.get(10, TimeUnit.SECONDS);
            assertFalse(redisKey(servers, slot.target(), item("ordered")).isEmpty(), "the item is on the new node");
        }
    }

    @Test
    void writesPipelinedToOneItemOfAHalfMovedSlotKeepTheirOrder() throws Exception {
        try (RedisServers servers = RedisServers.cluster(2);
             TestGateway gateway = TestGateway.start(servers.backendSettings());
             BinaryClient client = new BinaryClient(gateway.port(), READ_BOUND_MS)) {
            assertEquals(0, client.set("pipelined", "v0", 0, 0).status());
            HalfMoved slot = halfMove(servers, item("pipelined"));
            CompletableFuture<Void> moved = finishLater(servers, slot, 300);
            // In one write: the first set is still on its way when the second follows it to the same item.
            client.send(BinaryClient.frame(BinaryClient.SET, BinaryClient.storeExtras(0, 0),
                            BinaryClient.bytes("pipelined"), BinaryClient.bytes("v1"), 0, 1),
                    BinaryClient.frame(BinaryClient.SET, BinaryClient.storeExtras(0, 0),
                            BinaryClient.bytes("pipelined"), BinaryClient.bytes("v2"), 0, 2));
            Response first = client.read();
            Response second = client.read();
            moved.get(10, TimeUnit.SECONDS);
            // The first cannot be tried again behind the second: it fails as it always did, the second decides.
            assertEquals(BinaryStatus.TEMPORARY_FAILURE.code(), first.status());
            assertEquals(0, second.status(), second.valueText());
            assertEquals("v2", client.get("pipelined").valueText());
        }
    }

    @Test
    void aWriteWhoseSlotDoesNotMoveInTimeFailsForNow() throws Exception {
        Map<String, String> settings = new HashMap<>();
        try (RedisServers servers = RedisServers.cluster(2)) {
            settings.putAll(servers.backendSettings());
            settings.put("redis.migration_wait_ms", "300");
            try (TestGateway gateway = TestGateway.start(settings);
                 BinaryClient client = new BinaryClient(gateway.port(), READ_BOUND_MS)) {
                assertEquals(0, client.set("stuck", "v0", 0, 0).status());
                HalfMoved slot = halfMove(servers, item("stuck"));
                long started = System.nanoTime();
                Response write = client.set("stuck", "v1", 0, 0);
                long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
                assertEquals(BinaryStatus.TEMPORARY_FAILURE.code(), write.status());
                assertTrue(millis >= 250 && millis < 3000, "failed after " + millis + " ms");
                finishMove(servers, slot);
                assertEquals("v0", client.get("stuck").valueText(), "the refused write was not made");
                assertEquals(0, client.set("stuck", "v2", 0, 0).status());
                assertEquals("v2", client.get("stuck").valueText());
            }
        }
    }

    @Test
    void writersSeeNoFailureWhileTheirSlotsMoveKeyByKey() throws Exception {
        try (RedisServers servers = RedisServers.cluster(2);
             TestGateway gateway = TestGateway.start(waitingLong(servers))) {
            int writers = 4;
            List<BinaryClient> clients = new ArrayList<>();
            // A thread each: the writers block on their sockets, and a shared pool may have fewer threads.
            ExecutorService threads = Executors.newFixedThreadPool(writers);
            try {
                for (int i = 0; i < writers; i++) {
                    clients.add(new BinaryClient(gateway.port(), READ_BOUND_MS));
                    assertEquals(0, clients.get(i).set("hot-" + i, "0", 0, 0).status());
                }
                long refusedBefore = tryAgains(servers);
                AtomicBoolean stop = new AtomicBoolean();
                List<Future<Integer>> written = new ArrayList<>();
                for (int i = 0; i < writers; i++) {
                    BinaryClient client = clients.get(i);
                    String key = "hot-" + i;
                    // Sets of 1, 2, 3, ... one at a time; any reply but success ends the writer with a failure.
                    written.add(threads.submit(() -> {
                        int last = 0;
                        while (!stop.get()) {
                            Response reply = client.set(key, Integer.toString(last + 1), 0, 0);
                            if (reply.status() != 0) {
                                throw new AssertionError(key + " = " + (last + 1) + ": status 0x"
                                        + Integer.toHexString(reply.status()) + " " + reply.valueText());
                            }
                            last++;
                        }
                        return last;
                    }));
                }
                Set<Integer> done = new HashSet<>();
                for (int i = 0; i < writers; i++) {
                    if (!done.add(slotOf(servers, item("hot-" + i)))) {
                        continue; // moved with another hot key's slot
                    }
                    HalfMoved slot = startMove(servers, item("hot-" + i));
                    for (String key : keysInSlot(servers, slot.source(), slot.slot())) {
                        Thread.sleep(50);
                        migrate(servers, slot.source(), slot.target(), key);
                    }
                    Thread.sleep(50);
                    finishMove(servers, slot);
                }
                Thread.sleep(200);
                stop.set(true);
                for (int i = 0; i < writers; i++) {
                    int last = written.get(i).get(20, TimeUnit.SECONDS);
                    assertTrue(last > 0, "hot-" + i + " was written");
                    assertEquals(Integer.toString(last), clients.get(i).get("hot-" + i).valueText(),
                            "hot-" + i + " holds its last write");
                }
                assertTrue(tryAgains(servers) > refusedBefore, "Redis refused writes while their slots moved");
            } finally {
                threads.shutdownNow();
                for (BinaryClient client : clients) {
                    client.close();
                }
            }
        }
    }

    @Test
    void aCounterAcquiredWhileItsSlotMovesIsGrantedOnceItHasMoved() throws Exception {
        Map<String, String> settings = new HashMap<>();
        try (RedisServers servers = RedisServers.cluster(2)) {
            settings.putAll(waitingLong(servers));
            settings.put("counter.store", "redis");
            try (TestGateway gateway = TestGateway.start(settings);
                 CounterClient client = new CounterClient(gateway.counterPort())) {
                assertEquals(0, client.acquire("lock", 1, 5).status());
                // The counter stays on the old node, its leases go to the new one: every script on it is refused.
                HalfMoved slot = halfMove(servers, counter("lock"));
                CompletableFuture<Void> moved = finishLater(servers, slot, 800);
                long started = System.nanoTime();
                CounterClient.Response granted = client.acquire("lock", 2, 5);
                long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
                moved.get(10, TimeUnit.SECONDS);
                assertEquals(0, granted.status(), "status 0x" + Integer.toHexString(granted.status()) + " after "
                        + millis + " ms: " + granted.text());
                assertEquals(2, granted.u32(0));
                assertTrue(millis >= 600, "the acquisition waited for the slot: " + millis + " ms");
                assertEquals(3, client.get("lock").u32(0), "both acquisitions are held, once each");
                assertFalse(redisKey(servers, slot.target(), counter("lock")).isEmpty(), "the counter moved");
            }
        }
    }

    /** How many commands the cluster's nodes have refused with TRYAGAIN so far (their INFO errorstats). */
    private static long tryAgains(RedisServers servers) throws Exception {
        long count = 0;
        for (int node = 0; node < 2; node++) {
            Matcher matcher = Pattern.compile("errorstat_TRYAGAIN:count=(\\d+)")
                    .matcher(RedisServers.cli(servers.port(node), "INFO", "errorstats"));
            if (matcher.find()) {
                count += Long.parseLong(matcher.group(1));
            }
        }
        return count;
    }

    /** The servers' settings, with writes tried again for long enough to outlast the slowest move here. */
    private static Map<String, String> waitingLong(RedisServers servers) {
        Map<String, String> settings = new HashMap<>(servers.backendSettings());
        settings.put("redis.migration_wait_ms", "5000");
        return settings;
    }

    /** Finishes the move of {@code slot} after {@code millis}, on another thread. */
    private static CompletableFuture<Void> finishLater(RedisServers servers, HalfMoved slot, long millis) {
        return CompletableFuture.runAsync(() -> {
            try {
                Thread.sleep(millis);
                finishMove(servers, slot);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
    }

    /** The pattern of the Redis key of the item {@code key}. */
    private static String item(String key) {
        return "kvgate:i{*}" + key;
    }

    /** The pattern of the Redis key of the counter {@code name} (its leases' key shares its slot). */
    private static String counter(String name) {
        return "kvgate:c{*#" + name + "}";
    }

    /**
     * Starts moving the slot of the Redis key matching {@code pattern} to the other node, and moves every key of the
     * slot but that one.
     */
    private static HalfMoved halfMove(RedisServers servers, String pattern) throws Exception {
        HalfMoved slot = startMove(servers, pattern);
        String kept = redisKey(servers, slot.source(), pattern);
        for (String other : keysInSlot(servers, slot.source(), slot.slot())) {
            if (!other.equals(kept)) {
                migrate(servers, slot.source(), slot.target(), other);
            }
        }
        return slot;
    }

    /** Marks the slot of the Redis key matching {@code pattern} as migrating to the other node, moving no key yet. */
    private static HalfMoved startMove(RedisServers servers, String pattern) throws Exception {
        for (int source = 0; source < 2; source++) {
            String key = redisKey(servers, source, pattern);
            if (key.isEmpty()) {
                continue;
            }
            int target = 1 - source;
            int slot = Integer.parseInt(RedisServers.cli(servers.port(source), "CLUSTER", "KEYSLOT", key).strip());
            String sourceId = RedisServers.cli(servers.port(source), "CLUSTER", "MYID").strip();
            String targetId = RedisServers.cli(servers.port(target), "CLUSTER", "MYID").strip();
            cluster(servers, target, "SETSLOT", Integer.toString(slot), "IMPORTING", sourceId);
            cluster(servers, source, "SETSLOT", Integer.toString(slot), "MIGRATING", targetId);
            return new HalfMoved(slot, source, target, sourceId, targetId);
        }
        throw new AssertionError("no node holds " + pattern);
    }

    private static int slotOf(RedisServers servers, String pattern) throws Exception {
        for (int node = 0; node < 2; node++) {
            String key = redisKey(servers, node, pattern);
            if (!key.isEmpty()) {
                return Integer.parseInt(RedisServers.cli(servers.port(node), "CLUSTER", "KEYSLOT", key).strip());
            }
        }
        throw new AssertionError("no node holds " + pattern);
    }

    /** The Redis key matching {@code pattern} on {@code node}, or "" when the node holds none. */
    private static String redisKey(RedisServers servers, int node, String pattern) throws Exception {
        return RedisServers.cli(servers.port(node), "--raw", "KEYS", pattern).strip();
    }

    private static void finishMove(RedisServers servers, HalfMoved moved) throws Exception {
        for (String left : keysInSlot(servers, moved.source(), moved.slot())) {
            migrate(servers, moved.source(), moved.target(), left);
        }
        cluster(servers, moved.target(), "SETSLOT", Integer.toString(moved.slot()), "NODE", moved.targetId());
        cluster(servers, moved.source(), "SETSLOT", Integer.toString(moved.slot()), "NODE", moved.targetId());
    }

    private static List<String> keysInSlot(RedisServers servers, int node, int slot) throws Exception {
        List<String> keys = new ArrayList<>();
        for (String line : RedisServers.cli(servers.port(node), "--raw", "CLUSTER", "GETKEYSINSLOT",
                Integer.toString(slot), "1000").split("\n")) {
            if (!line.isBlank()) {
                keys.add(line.strip());
            }
        }
        return keys;
    }

    private static void migrate(RedisServers servers, int source, int target, String key) throws Exception {
        String reply = RedisServers.cli(servers.port(source), "MIGRATE", "127.0.0.1",
                Integer.toString(servers.port(target)), "", "0", "5000", "KEYS", key).strip();
        assertEquals("OK", reply, "MIGRATE " + key);
    }

    private static void cluster(RedisServers servers, int node, String... arguments) throws Exception {
        String[] command = new String[arguments.length + 1];
        command[0] = "CLUSTER";
        System.arraycopy(arguments, 0, command, 1, arguments.length);
        String reply = RedisServers.cli(servers.port(node), command).strip();
        assertEquals("OK", reply, String.join(" ", command));
    }
}
