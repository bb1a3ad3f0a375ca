package kvgate.backend.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.netty.channel.nio.NioEventLoopGroup;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import kvgate.spi.Backend;
import kvgate.spi.BackendContext;
import kvgate.spi.CounterRules;
import kvgate.spi.Namespace;
import kvgate.spi.Operation;
import kvgate.spi.Result;
import kvgate.spi.Settings;
import kvgate.spi.Status;
import kvgate.spi.StoreMode;
import kvgate.testing.RedisServers;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Expiry is judged by the gateway's clock alone, however far Redis's clock is from it: an item is there exactly as
 * long as the gateway's reads say, for the scripts as for gets. A real redis-server; gateways whose clocks are an
 * hour off it (the test cannot move Redis's clock, so it moves the gateway's). And a CAS never repeats in a shard,
 * whatever Redis's clock does (the test moves the shard's mark instead).
 */
@Tag("servers")
class ClocksTest {
    private static final Duration HOUR = Duration.ofHours(1);
    private static final Namespace NAMESPACE = Namespace.DEFAULT;

    @Test
    void aKeyStoredAgainAfterItsDeleteGetsACasAboveAllItsShardHandedOutWhateverRedissClockSays() throws Exception {
        RedisServers redis = RedisServers.standalone();
        int port = redis.port(0);
        NioEventLoopGroup loops = new NioEventLoopGroup(1);
        RedisClient client = RedisClient.create("redis://127.0.0.1:" + port);
        try (Backend backend = open(port, Clock.systemUTC(), loops);
             StatefulRedisConnection<String, String> direct = client.connect()) {
            long first = assertInstanceOf(Result.Stored.class, run(backend, store("k", StoreMode.SET, 0))).cas();
            // CAS values an hour ahead of Redis's clock: as a primary whose clock was ahead handed them out and
            // replicated its mark before this node, whose clock is behind, was promoted. The item that had the
            // highest of them was deleted since.
            long ahead = first + HOUR.toNanos() / 1000;
            String mark = new String(KeyLayout.casMarkOf(NAMESPACE, bytes("k")), StandardCharsets.UTF_8);
            assertEquals(Long.toString(first), direct.sync().get(mark), "the shard's mark is its last CAS");
            direct.sync().set(mark, Long.toString(ahead));
            assertEquals(Status.OK, run(backend, new Operation.Delete(NAMESPACE, bytes("k"), 0)).status());
            long again = assertInstanceOf(Result.Stored.class, run(backend, store("k", StoreMode.SET, 0))).cas();
            assertTrue(again > ahead, "a CAS of " + again + " after " + ahead + " was handed out in the shard");
            assertEquals(Long.toString(again), direct.sync().get(mark));
        } finally {
            client.shutdown();
            loops.shutdownGracefully(0, 1, TimeUnit.SECONDS).await(5, TimeUnit.SECONDS);
            redis.close();
        }
    }

    @Test
    void anItemLivesAsLongAsTheGatewaysClockSaysWhateverRedissClockSays() throws Exception {
        RedisServers redis = RedisServers.standalone();
        int port = redis.port(0);
        NioEventLoopGroup loops = new NioEventLoopGroup(1);
        try {
            Clock behind = Clock.offset(Clock.systemUTC(), HOUR.negated());
            Clock ahead = Clock.offset(Clock.systemUTC(), HOUR);
            try (Backend slow = open(port, behind, loops); Backend fast = open(port, ahead, loops)) {
                // An hour behind Redis: an item a minute from expiry by this clock is there.
                assertEquals(Status.OK, run(slow, store("behind", StoreMode.SET, behind.millis() + 60_000)).status());
                assertInstanceOf(Result.Value.class, run(slow, new Operation.Get(NAMESPACE, bytes("behind"))));

                // An hour ahead of Redis: once expired by this clock the item is gone for reads and scripts alike.
                assertEquals(Status.OK, run(fast, store("ahead", StoreMode.SET, ahead.millis() + 300)).status());
                Thread.sleep(400);
                assertEquals(Status.NOT_FOUND, run(fast, new Operation.Get(NAMESPACE, bytes("ahead"))).status());
                assertEquals(Status.OK, run(fast, store("ahead", StoreMode.ADD, 0)).status(), "add of an expired item");
            }
            // Closing waits for Lettuce's own threads: none outlives the backends. A thread completes its
            // termination future (what closing waits for) just before it exits, so it may be alive a moment more.
            List<String> left = lettuceThreads();
            for (long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
                    !left.isEmpty() && System.nanoTime() < deadline; left = lettuceThreads()) {
                Thread.sleep(10);
            }
            assertEquals(List.of(), left);
        } finally {
            loops.shutdownGracefully(0, 1, TimeUnit.SECONDS).await(5, TimeUnit.SECONDS);
            redis.close();
        }
    }

    private static List<String> lettuceThreads() {
        return Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive).map(Thread::getName)
                .filter(name -> name.startsWith("lettuce-")).toList();
    }

    private static Backend open(int port, Clock clock, NioEventLoopGroup loops) {
        Settings settings = new Settings(Map.of("uri", "redis://127.0.0.1:" + port, "cluster", "",
                "timeout_ms", "5000", "topology_refresh_ms", "10000", "migration_wait_ms", "1000", "layout", "gateway",
                "failure_limit", "3",
                "retry_ms", "1000"));
        return new RedisBackendFactory().open(new BackendContext("test", settings, clock, 1 << 20, loops,
                new CounterRules(10, 60_000)));
    }

    private static Operation.Store store(String key, StoreMode mode, long expiresAt) {
        return new Operation.Store(NAMESPACE, bytes(key), mode, bytes("v"), 0, expiresAt, 0);
    }

    private static Result run(Backend backend, Operation operation) throws Exception {
        return backend.execute(operation).toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

}
