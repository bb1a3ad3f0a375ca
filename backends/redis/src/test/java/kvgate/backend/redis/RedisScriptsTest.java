package kvgate.backend.redis;

import static kvgate.testing.BackendUnderTest.get;
import static kvgate.testing.BackendUnderTest.set;
import static kvgate.testing.BackendUnderTest.valueText;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import kvgate.spi.Result;
import kvgate.spi.Status;
import kvgate.testing.BackendUnderTest;
import kvgate.testing.RedisServers;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Redis loses the backend's scripts behind its back (SCRIPT FLUSH, as after a restart or on a replica promoted
 * without them): a set then a get sent together never read the value the set replaced. The set may fail for now,
 * since its script did not run; the scripts are loaded again and a retry succeeds.
 */
@Tag("servers")
class RedisScriptsTest {

    @Test
    void aSetBatchedBeforeAGetAfterTheScriptsWereLostIsNeverReadAsTheOldValue() throws Exception {
        try (RedisServers servers = RedisServers.standalone();
             BackendUnderTest redis = new BackendUnderTest(new RedisBackendFactory(),
                     BackendUnderTest.under("redis", servers.backendSettings()))) {
            assertEquals(Status.OK, redis.run(set("k", "v1")).status());
            assertEquals("OK", RedisServers.cli(servers.port(0), "SCRIPT", "FLUSH").strip());
            List<CompletionStage<Result>> batch = redis.backend().executeAll(List.of(set("k", "v2"), get("k")));
            Result set = batch.get(0).toCompletableFuture().get(10, TimeUnit.SECONDS);
            Result get = batch.get(1).toCompletableFuture().get(10, TimeUnit.SECONDS);
            if (set.ok()) {
                assertEquals("v2", valueText(get), "the get was answered before the set batched ahead of it");
            } else {
                assertEquals(Status.TEMPORARY_FAILURE, set.status());
                assertEquals("v1", valueText(get), "a set that failed for now changed nothing");
            }
            long deadline = System.currentTimeMillis() + 10_000;
            while (!redis.run(set("k", "v3")).ok()) {
                assertTrue(System.currentTimeMillis() < deadline, "the scripts were not loaded again");
                Thread.sleep(50);
            }
            assertEquals("v3", valueText(redis.run(get("k"))));
        }
    }
}
