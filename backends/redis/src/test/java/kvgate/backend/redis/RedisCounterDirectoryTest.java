package kvgate.backend.redis;

import static kvgate.testing.BackendUnderTest.bytes;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.Map;
import kvgate.spi.Namespace;
import kvgate.spi.Operation;
import kvgate.spi.Result;
import kvgate.spi.Status;
import kvgate.testing.BackendUnderTest;
import kvgate.testing.RedisServers;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * On a Redis Cluster a namespace's counter directory (listing names for dumps) lives on another node than most of
 * its counters: with that node gone, an acquisition granted by the counter's node holds its resources and is
 * reported granted; the directory catches up at a later grant.
 */
@Tag("servers")
class RedisCounterDirectoryTest {
    private static final int MASTERS = 3;
    private static final Namespace COUNTERS = new Namespace("counters");
    private static final String OWNER = "gateway/1";

    @Test
    void anAcquisitionGrantedWhileTheDirectorysNodeIsDownIsReportedGranted() throws Exception {
        try (RedisServers servers = RedisServers.cluster(MASTERS)) {
            Map<String, String> settings = new HashMap<>(BackendUnderTest.under("redis", servers.backendSettings()));
            settings.put("timeout_ms", "500");
            try (BackendUnderTest redis = new BackendUnderTest(new RedisBackendFactory(), settings)) {
                assertEquals(Status.OK, redis.run(acquire("probe", 1, 10)).status());
                int holder = -1;
                String directory = null;
                for (int i = 0; i < MASTERS; i++) {
                    String found = RedisServers.cli(servers.port(i), "KEYS", "kvgate:d*").strip();
                    if (!found.isEmpty()) {
                        holder = i;
                        directory = found;
                    }
                }
                assertTrue(holder >= 0, "the directory is in Redis");
                String namespace = directory.substring(directory.indexOf('{') + 1, directory.indexOf('}'));
                String name = elsewhere(servers, namespace, holder);
                servers.kill(holder);
                assertEquals(Status.OK, redis.run(acquire(name, 2, 10)).status(), "granted on its own node");
                assertEquals(2, assertInstanceOf(Result.Number.class,
                        redis.run(new Operation.ReadCounter(COUNTERS, bytes(name), OWNER))).value());
                assertEquals(Status.OK, redis.run(new Operation.Release(COUNTERS, bytes(name), 2, OWNER)).status(),
                        "and held, so it can be released");
            }
        }
    }

    private static Operation acquire(String name, long resources, long maximum) {
        return new Operation.Acquire(COUNTERS, bytes(name), resources, maximum, OWNER);
    }

    /** A counter name whose keys are on another master than {@code holder} (masters hold even slot ranges). */
    private static String elsewhere(RedisServers servers, String namespace, int holder) throws Exception {
        for (int i = 0; ; i++) {
            String name = "n" + i;
            int slot = Integer.parseInt(RedisServers.cli(servers.port(0), "CLUSTER", "KEYSLOT",
                    "kvgate:c{" + namespace + "#" + name + "}").strip());
            if (slot * MASTERS / 16384 != holder) {
                return name;
            }
        }
    }
}
