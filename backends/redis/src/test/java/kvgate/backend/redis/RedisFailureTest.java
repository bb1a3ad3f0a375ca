package kvgate.backend.redis;

import static kvgate.testing.BackendUnderTest.bytes;
import static kvgate.testing.BackendUnderTest.get;
import static kvgate.testing.BackendUnderTest.set;
import static kvgate.testing.BackendUnderTest.valueText;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.Map;
import kvgate.spi.Item;
import kvgate.spi.Namespace;
import kvgate.spi.Operation;
import kvgate.spi.Result;
import kvgate.spi.Status;
import kvgate.testing.BackendUnderTest;
import kvgate.testing.RedisServers;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Redis dies (SIGKILL) under the backend and comes back on its port: while it is gone every operation gets a
 * temporary failure quickly, never a hang; once it is back the backend serves again on its own. Once with a
 * standalone server, once with one master of a three-master cluster. And a cluster failover: a master dies for
 * good, its replica takes over, and the backend follows the new topology without a restart. A server that stops
 * answering (SIGSTOP) after a write was sent makes that write's outcome unknown: a backend error, not a temporary
 * failure.
 */
@Tag("servers")
class RedisFailureTest {
    private static final int TIMEOUT_MS = 500;
    /** An answer slower than this waited for something instead of failing fast. */
    private static final long FAST_MILLIS = 2000;
    private static final long RECOVERY_MS = 15_000;
    private static final int RETRY_MS = 300;
    private static final Namespace NAMESPACE = Namespace.DEFAULT;

    @Test
    void aStandaloneServerDownFailsRequestsFastAndItsReturnIsPickedUpAlone() throws Exception {
        try (RedisServers servers = RedisServers.standalone(); BackendUnderTest redis = open(servers)) {
            assertEquals(Status.OK, redis.run(set("before", "v")).status());
            servers.kill(0);
            for (int i = 0; i < 5; i++) {
                assertEquals(Status.TEMPORARY_FAILURE, timed(redis, get("before")).status());
                assertEquals(Status.TEMPORARY_FAILURE, timed(redis, set("during-" + i, "v")).status());
            }
            servers.restart(0);
            awaitServing(redis, "after");
            assertEquals("v", valueText(redis.run(get("after"))));
        }
    }

    @Test
    void aWriteSentToAServerThatStopsAnsweringHasAnUnknownOutcomeAndAReadFailsForNow() throws Exception {
        try (RedisServers servers = RedisServers.standalone(); BackendUnderTest redis = open(servers)) {
            assertEquals(Status.OK, redis.run(set("counted", "1")).status());
            servers.pause(0);
            try {
                // Sent, then timed out: Redis may still apply it, so a client must not retry it as undone.
                assertEquals(Status.BACKEND_ERROR, timed(redis, new Operation.Arithmetic(NAMESPACE, bytes("counted"),
                        true, 1, 0, true, Item.NEVER, 0)).status());
                assertEquals(Status.TEMPORARY_FAILURE, timed(redis, get("counted")).status());
            } finally {
                servers.resume(0);
            }
            // The server handles what it was sent while stopped: the increment that was reported unknown happened.
            long deadline = System.currentTimeMillis() + RECOVERY_MS;
            Result read = redis.run(get("counted"));
            while (!read.ok()) {
                assertTrue(System.currentTimeMillis() < deadline, "the server did not come back");
                Thread.sleep(50);
                read = redis.run(get("counted"));
            }
            assertEquals("2", valueText(read));
        }
    }

    @Test
    void aStoppedServerCostsItsRequestsTheirTimeoutOnlyUntilItsBreakerOpens() throws Exception {
        try (RedisServers servers = RedisServers.standalone(); BackendUnderTest redis = open(servers)) {
            assertEquals(Status.OK, redis.run(set("k", "v")).status());
            servers.pause(0);
            try {
                for (int i = 0; i < 3; i++) { // the failure limit: each waits for its timeout
                    assertEquals(Status.TEMPORARY_FAILURE, redis.run(get("k")).status());
                }
                long started = System.nanoTime();
                for (int i = 0; i < 200; i++) {
                    Result result = redis.run(i % 2 == 0 ? get("k") : set("k", "w"));
                    assertEquals(Status.TEMPORARY_FAILURE, result.status(), result.toString());
                }
                long micros = (System.nanoTime() - started) / 1000;
                // The breaker's probes are the backend's own PINGs: no request waits any more.
                assertTrue(micros < 200 * 1000, "200 requests took " + micros + " us");
                assertTrue(redis.backend().stats().get("nodes_failing_fast").equals("1"), redis.backend().stats()
                        .toString());
            } finally {
                servers.resume(0);
            }
            long resumed = System.currentTimeMillis();
            awaitServing(redis, "k");
            assertTrue(System.currentTimeMillis() - resumed < RETRY_MS + TIMEOUT_MS + 1000,
                    "served again only after " + (System.currentTimeMillis() - resumed) + " ms");
            assertEquals("0", redis.backend().stats().get("nodes_failing_fast"));
            assertEquals("1", redis.backend().stats().get("node_breaker_trips"));
        }
    }

    @Test
    void aStoppedClusterMasterFailsOnlyItsOwnKeysFast() throws Exception {
        try (RedisServers servers = RedisServers.cluster(3); BackendUnderTest redis = open(servers)) {
            for (int i = 0; i < 60; i++) {
                assertEquals(Status.OK, redis.run(set("key-" + i, "v")).status());
            }
            servers.pause(1);
            try {
                // Past the failure limit of the stopped master's keys, then every key once more, timed.
                for (int round = 0; round < 2; round++) {
                    int served = 0;
                    int failed = 0;
                    int slow = 0;
                    for (int i = 0; i < 60; i++) {
                        long started = System.nanoTime();
                        Status status = redis.run(get("key-" + i)).status();
                        long millis = (System.nanoTime() - started) / 1_000_000;
                        if (status == Status.OK) {
                            served++;
                        } else {
                            assertEquals(Status.TEMPORARY_FAILURE, status);
                            failed++;
                            slow += millis >= 100 ? 1 : 0;
                        }
                    }
                    assertTrue(served > 0 && failed > 0, "served " + served + ", failed " + failed);
                    if (round == 1) {
                        assertEquals(0, slow, slow + " failures waited after the breaker opened");
                    }
                }
                assertEquals("1", redis.backend().stats().get("nodes_failing_fast"));
            } finally {
                servers.resume(1);
            }
            for (int i = 0; i < 60; i++) {
                awaitServing(redis, "key-" + i);
            }
        }
    }

    @Test
    void aClusterMasterDownFailsRequestsFastAndItsReturnIsPickedUpAlone() throws Exception {
        try (RedisServers servers = RedisServers.cluster(3); BackendUnderTest redis = open(servers)) {
            for (int i = 0; i < 30; i++) {
                assertEquals(Status.OK, redis.run(set("key-" + i, "v")).status());
            }
            servers.kill(1);
            int failed = 0;
            for (int i = 0; i < 30; i++) {
                Status status = timed(redis, get("key-" + i)).status();
                assertTrue(status == Status.OK || status == Status.TEMPORARY_FAILURE, "status " + status);
                failed += status == Status.TEMPORARY_FAILURE ? 1 : 0;
            }
            assertTrue(failed > 0, "the keys of the dead master cannot have been served");
            servers.restart(1);
            for (int i = 0; i < 30; i++) {
                awaitServing(redis, "after-" + i);
            }
        }
    }

    @Test
    void aClusterFailoverIsFollowedWithoutARestart() throws Exception {
        try (RedisServers servers = RedisServers.clusterWithReplicas(3); BackendUnderTest redis = open(servers)) {
            for (int i = 0; i < 30; i++) {
                assertEquals(Status.OK, redis.run(set("kept-" + i, "v" + i)).status());
            }
            // Scripts are loaded into replicas too: Redis does not pass them on, and this one is about to be promoted.
            assertTrue(RedisServers.cli(servers.port(4), "INFO", "memory")
                    .matches("(?s).*number_of_cached_scripts:[1-9].*"), "the replica has the scripts");
            // Writes reach replicas asynchronously; WAIT on the master makes sure its replica has them.
            RedisServers.cli(servers.port(1), "WAIT", "1", "5000");
            servers.kill(1);
            long deadline = System.currentTimeMillis() + RECOVERY_MS;
            while (!servers.isMaster(4)) {
                assertTrue(System.currentTimeMillis() < deadline, "the replica was not promoted");
                Thread.sleep(100);
            }
            for (int i = 0; i < 30; i++) {
                String key = "kept-" + i;
                Result read = timed(redis, get(key));
                while (!read.ok()) {
                    assertEquals(Status.TEMPORARY_FAILURE, read.status());
                    assertTrue(System.currentTimeMillis() < deadline, "the backend did not follow the failover");
                    Thread.sleep(100);
                    read = timed(redis, get(key));
                }
                assertEquals("v" + i, valueText(read));
                awaitServing(redis, key);
            }
        }
    }

    /** The backend with a short timeout and a quick topology refresh, so that failures show within the test. */
    private static BackendUnderTest open(RedisServers servers) throws Exception {
        Map<String, String> settings = new HashMap<>(BackendUnderTest.under("redis", servers.backendSettings()));
        settings.put("timeout_ms", Integer.toString(TIMEOUT_MS));
        settings.put("topology_refresh_ms", "500");
        settings.put("retry_ms", Integer.toString(RETRY_MS));
        return new BackendUnderTest(new RedisBackendFactory(), settings);
    }

    /** The operation's result, which must come within {@link #FAST_MILLIS}. */
    private static Result timed(BackendUnderTest redis, Operation operation) throws Exception {
        long started = System.nanoTime();
        Result result = redis.run(operation);
        long millis = (System.nanoTime() - started) / 1_000_000;
        assertTrue(millis < FAST_MILLIS, "an answer took " + millis + " ms");
        return result;
    }

    private static void awaitServing(BackendUnderTest redis, String key) throws Exception {
        long deadline = System.currentTimeMillis() + RECOVERY_MS;
        while (!redis.run(set(key, "v")).ok()) {
            assertTrue(System.currentTimeMillis() < deadline,
                    "the backend did not recover within " + RECOVERY_MS + " ms");
            Thread.sleep(100);
        }
    }
}
