package kvgate.plugins;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.zip.ZipFile;
import kvgate.config.StartupException;
import kvgate.testing.BinaryClient;
import kvgate.testing.RedisServers;
import kvgate.testing.TestGateway;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The Redis backend arrives as a plugin holding only its own classes: Lettuce and Netty come from the gateway's
 * class loader, so the plugin and the gateway share one Netty. Its settings are checked at start-up.
 */
@Tag("servers")
class RedisPluginTest {

    @Test
    void thePluginZipHoldsOnlyItsOwnJarAndLettuceComesFromTheGateway() throws Exception {
        assertThrows(ClassNotFoundException.class, () -> Class.forName("kvgate.backend.redis.RedisBackendFactory"),
                "the Redis backend must not be on the gateway's class path");
        Class.forName("io.lettuce.core.RedisClient");
        Class.forName("reactor.core.publisher.Mono");
        Path zip;
        try (var zips = Files.list(TestGateway.pluginsDirectory())) {
            zip = zips.filter(p -> p.getFileName().toString().startsWith("kvgate-backend-redis")).findFirst()
                    .orElseThrow();
        }
        List<String> jars = new ArrayList<>();
        try (ZipFile plugin = new ZipFile(zip.toFile())) {
            plugin.stream().map(entry -> entry.getName()).filter(name -> name.endsWith(".jar")).forEach(jars::add);
        }
        assertEquals(1, jars.size(), "only the plugin's own jar: " + jars);
        assertTrue(jars.get(0).startsWith("lib/kvgate-backend-redis"), jars.toString());
    }

    @Test
    void aGatewayOnTheRedisPluginServesAndReportsItsCapabilities() throws Exception {
        try (RedisServers redis = RedisServers.standalone();
             TestGateway gateway = TestGateway.start(redis.backendSettings());
             BinaryClient c = new BinaryClient(gateway.port())) {
            assertEquals(0, c.set("via-redis-plugin", "x", 0, 0).status());
            assertEquals("x", c.get("via-redis-plugin").valueText());
            int shard = Math.floorMod(Arrays.hashCode("via-redis-plugin".getBytes(StandardCharsets.UTF_8)), 1024);
            String stored = RedisServers.cli(redis.port(0), "EXISTS",
                    "kvgate:i{default#" + shard + "}via-redis-plugin");
            assertTrue(stored.contains("1"), "the item is a Redis key of the documented layout: " + stored);
            assertEquals("1 shards=1024", RedisServers.cli(redis.port(0), "GET", "kvgate:layout").strip());
        }
    }

    @Test
    void aStoreLaidOutOtherwiseStopsStartUpRatherThanOrphanItsItems() throws Exception {
        try (RedisServers redis = RedisServers.standalone()) {
            RedisServers.cli(redis.port(0), "SET", "kvgate:layout", "1 shards=64");
            StartupException e = assertThrows(StartupException.class, () -> TestGateway.start(redis.backendSettings()));
            assertTrue(e.getMessage().contains("1 shards=64") && e.getMessage().contains("1 shards=1024"),
                    e.getMessage());
        }
    }

    @Test
    void neitherOrBothOfUriAndClusterStopStartUpNamingThem() {
        for (Map<String, String> settings : List.of(Map.of("backend", "redis"),
                Map.of("backend", "redis", "redis.uri", "redis://127.0.0.1:1", "redis.cluster", "127.0.0.1:2"))) {
            StartupException e = assertThrows(StartupException.class, () -> TestGateway.start(settings));
            assertTrue(e.getMessage().contains("redis.uri") && e.getMessage().contains("redis.cluster"),
                    e.getMessage());
        }
    }

    @Test
    void anUnreachableServerStopsStartUpNamingThePlugin() {
        StartupException e = assertThrows(StartupException.class,
                () -> TestGateway.start(Map.of("backend", "redis", "redis.uri", "redis://127.0.0.1:1",
                        "redis.timeout_ms", "300")));
        assertTrue(e.getMessage().contains("redis-backend"), e.getMessage());
    }
}
