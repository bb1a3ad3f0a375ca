package kvgate.memcached;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.Map;
import kvgate.memcached.binary.BinaryStatus;
import kvgate.testing.BinaryClient;
import kvgate.testing.BinaryClient.Response;
import kvgate.testing.RedisServers;
import kvgate.testing.TestGateway;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Redis dies (SIGKILL) under a gateway and comes back on its port: while it is gone every request gets the
 * temporary failure reply quickly, never a hang; once it is back the gateway serves again on its own. Once with a
 * standalone server, once with one master of a three-master cluster. And a cluster failover: a master dies for
 * good, its replica takes over, and the gateway follows the new topology without a restart. A server that stops
 * answering (SIGSTOP) after a write was sent makes that write's outcome unknown: a backend error, not a temporary
 * failure.
 */
@Tag("servers")
class RedisFailureTest {
    private static final int TIMEOUT_MS = 500;
    /** A reply slower than this waited for something instead of failing fast. */
    private static final long FAST_MILLIS = 2000;
    /** Every read gives up after this, so an unanswered request fails the test instead of hanging it. */
    private static final int READ_BOUND_MS = 10_000;
    private static final long RECOVERY_MS = 15_000;
    private static final int TEMPORARY_FAILURE = BinaryStatus.TEMPORARY_FAILURE.code();
    private static final int INTERNAL_ERROR = BinaryStatus.INTERNAL_ERROR.code();

    @Test
    void aStandaloneServerDownFailsRequestsFastAndItsReturnIsPickedUpAlone() throws Exception {
        try (RedisServers servers = RedisServers.standalone();
             TestGateway gateway = TestGateway.start(settings(servers));
             BinaryClient client = new BinaryClient(gateway.port(), READ_BOUND_MS)) {
            assertEquals(0, client.set("before", "v", 0, 0).status());
            servers.kill(0);
            for (int i = 0; i < 5; i++) {
                String key = "during-" + i;
                assertEquals(TEMPORARY_FAILURE, timed(() -> client.get("before")).status());
                assertEquals(TEMPORARY_FAILURE, timed(() -> client.set(key, "v", 0, 0)).status());
            }
            servers.restart(0);
            awaitServing(client, "after");
            assertEquals("v", client.get("after").valueText());
        }
    }

    @Test
    void aWriteSentToAServerThatStopsAnsweringHasAnUnknownOutcomeAndAReadFailsForNow() throws Exception {
        try (RedisServers servers = RedisServers.standalone();
             TestGateway gateway = TestGateway.start(settings(servers));
             BinaryClient client = new BinaryClient(gateway.port(), READ_BOUND_MS)) {
            assertEquals(0, client.set("counted", "1", 0, 0).status());
            servers.pause(0);
            try {
                // Sent, then timed out: Redis may still apply it, so a client must not retry it as undone.
                assertEquals(INTERNAL_ERROR, timed(() -> client.call(BinaryClient.INCREMENT,
                        BinaryClient.arithmeticExtras(1, 0, 0), BinaryClient.bytes("counted"), BinaryClient.NONE,
                        0)).status());
                assertEquals(TEMPORARY_FAILURE, timed(() -> client.get("counted")).status());
            } finally {
                servers.resume(0);
            }
            // The server handles what it was sent while stopped: the increment that was reported unknown happened.
            long deadline = System.currentTimeMillis() + RECOVERY_MS;
            Response read = client.get("counted");
            while (read.status() != 0) {
                assertTrue(System.currentTimeMillis() < deadline, "the server did not come back");
                Thread.sleep(50);
                read = client.get("counted");
            }
            assertEquals("2", read.valueText());
        }
    }

    @Test
    void aClusterMasterDownFailsRequestsFastAndItsReturnIsPickedUpAlone() throws Exception {
        try (RedisServers servers = RedisServers.cluster(3);
             TestGateway gateway = TestGateway.start(settings(servers));
             BinaryClient client = new BinaryClient(gateway.port(), READ_BOUND_MS)) {
            for (int i = 0; i < 30; i++) {
                assertEquals(0, client.set("key-" + i, "v", 0, 0).status());
            }
            servers.kill(1);
            int failed = 0;
            for (int i = 0; i < 30; i++) {
                String key = "key-" + i;
                Response reply = timed(() -> client.get(key));
                assertTrue(reply.status() == 0 || reply.status() == TEMPORARY_FAILURE, "status " + reply.status());
                failed += reply.status() == TEMPORARY_FAILURE ? 1 : 0;
            }
            assertTrue(failed > 0, "the keys of the dead master cannot have been served");
            servers.restart(1);
            for (int i = 0; i < 30; i++) {
                awaitServing(client, "after-" + i);
            }
        }
    }

    @Test
    void aClusterFailoverIsFollowedWithoutARestart() throws Exception {
        try (RedisServers servers = RedisServers.clusterWithReplicas(3);
             TestGateway gateway = TestGateway.start(settings(servers));
             BinaryClient client = new BinaryClient(gateway.port(), READ_BOUND_MS)) {
            for (int i = 0; i < 30; i++) {
                assertEquals(0, client.set("kept-" + i, "v" + i, 0, 0).status());
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
                Response read = timed(() -> client.get(key));
                while (read.status() != 0) {
                    assertEquals(TEMPORARY_FAILURE, read.status());
                    assertTrue(System.currentTimeMillis() < deadline, "the gateway did not follow the failover");
                    Thread.sleep(100);
                    read = timed(() -> client.get(key));
                }
                assertEquals("v" + i, read.valueText());
                awaitServing(client, key);
            }
        }
    }

    private static Map<String, String> settings(RedisServers servers) {
        Map<String, String> settings = new HashMap<>(servers.backendSettings());
        settings.put("redis.timeout_ms", Integer.toString(TIMEOUT_MS));
        settings.put("redis.topology_refresh_ms", "500");
        return settings;
    }

    private interface Call {
        Response run() throws Exception;
    }

    private static Response timed(Call call) throws Exception {
        long started = System.nanoTime();
        Response reply = call.run();
        long millis = (System.nanoTime() - started) / 1_000_000;
        assertTrue(millis < FAST_MILLIS, "a reply took " + millis + " ms");
        return reply;
    }

    private static void awaitServing(BinaryClient client, String key) throws Exception {
        long deadline = System.currentTimeMillis() + RECOVERY_MS;
        while (client.set(key, "v", 0, 0).status() != 0) {
            assertTrue(System.currentTimeMillis() < deadline,
                    "the gateway did not recover within " + RECOVERY_MS + " ms");
            Thread.sleep(100);
        }
    }
}
