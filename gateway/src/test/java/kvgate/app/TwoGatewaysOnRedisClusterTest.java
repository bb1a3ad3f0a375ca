package kvgate.app;

import static kvgate.testing.BinaryClient.COLLECTIONS;
import static kvgate.testing.BinaryClient.GET;
import static kvgate.testing.BinaryClient.JSON;
import static kvgate.testing.BinaryClient.NONE;
import static kvgate.testing.BinaryClient.SELECT_BUCKET;
import static kvgate.testing.BinaryClient.SET;
import static kvgate.testing.BinaryClient.XERROR;
import static kvgate.testing.BinaryClient.bytes;
import static kvgate.testing.BinaryClient.collectionKey;
import static kvgate.testing.BinaryClient.storeExtras;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import kvgate.testing.BinaryClient;
import kvgate.testing.ChildGateway;
import kvgate.testing.CounterClient;
import kvgate.testing.OkuyamaClient;
import kvgate.testing.Ports;
import kvgate.testing.RedisServers;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Two gateway processes on one three-master Redis Cluster, as users scale out: the gateways are stateless, so a
 * collections manifest set through one is in force on the other within the refresh bound, a value written through
 * one protocol on one gateway is read through another on the other, and counters shared through Redis never exceed
 * their maximum with clients on both. A gateway killed with -9 has its acquisitions released once their lease ran
 * out, and not before.
 */
@Tag("servers")
class TwoGatewaysOnRedisClusterTest {
    private static final long REFRESH_MS = 300;
    private static final long LEASE_MS = 1500;
    /** How long polls for an expected state wait before the test fails (far above the bounds they check). */
    private static final long DEADLINE_MS = 10_000;

    private static RedisServers cluster;
    private static Path logs;
    private static Gateway a;
    private static Gateway b;

    /** A gateway process and the ports of its listeners. */
    private record Gateway(ChildGateway process, int counterPort, int okuyamaPort) {
        static Gateway start(Path log) throws Exception {
            int counterPort = Ports.free();
            int okuyamaPort = Ports.free();
            List<String> settings = new ArrayList<>();
            cluster.backendSettings().forEach((key, value) -> settings.add(key + "=" + value));
            settings.addAll(List.of("buckets=default,shared", "collections.refresh_ms=" + REFRESH_MS,
                    "counter.enable=true", "counter.bind=127.0.0.1", "counter.port=" + counterPort,
                    "counter.store=redis", "counter.lease_ms=" + LEASE_MS,
                    "okuyama.enable=true", "okuyama.bind=127.0.0.1", "okuyama.port=" + okuyamaPort));
            ChildGateway process = ChildGateway.start(log, settings.toArray(String[]::new));
            process.awaitListening(counterPort);
            process.awaitListening(okuyamaPort);
            return new Gateway(process, counterPort, okuyamaPort);
        }
    }

    @BeforeAll
    static void start() throws Exception {
        cluster = RedisServers.cluster(3);
        logs = Files.createTempDirectory("kvgate-two-gateways");
        a = Gateway.start(logs.resolve("a.log"));
        b = Gateway.start(logs.resolve("b.log"));
    }

    @AfterAll
    static void stop() throws Exception {
        for (Gateway gateway : new Gateway[] {a, b}) {
            if (gateway != null) {
                gateway.process().close();
            }
        }
        if (cluster != null) {
            cluster.close();
        }
        try (var files = Files.list(logs)) {
            for (Path file : files.toList()) {
                Files.delete(file);
            }
        }
        Files.delete(logs);
    }

    @Test
    void aManifestSetThroughOneGatewayIsInForceOnTheOtherWithinTheRefreshBound() throws Exception {
        try (BinaryClient onA = collections(a); BinaryClient onB = collections(b)) {
            assertEquals(0x88, onB.call(GET, NONE, collectionKey(8, "k"), NONE, 0).status(), "unknown collection");
            assertEquals(0, onA.setManifest("{\"uid\":\"1\",\"scopes\":[{\"name\":\"_default\",\"uid\":\"0\","
                    + "\"collections\":[{\"name\":\"_default\",\"uid\":\"0\"},{\"name\":\"c8\",\"uid\":\"8\"}]}]}")
                    .status());
            BinaryClient.Response stored =
                    onA.call(SET, storeExtras(0, 0), collectionKey(8, "k"), bytes("through A"), 0);
            assertEquals(0, stored.status(), stored.valueText());
            long set = System.currentTimeMillis();
            BinaryClient.Response read;
            while ((read = onB.call(GET, NONE, collectionKey(8, "k"), NONE, 0)).status() != 0) {
                assertTrue(System.currentTimeMillis() - set < DEADLINE_MS, "B never took the manifest up");
                Thread.sleep(20);
            }
            assertEquals("through A", read.valueText());
            // The bound is the refresh interval (B refreshes at half of it); scheduling gets a generous margin.
            assertTrue(System.currentTimeMillis() - set < REFRESH_MS + 2000,
                    "in force on B after " + (System.currentTimeMillis() - set) + " ms");
        }
    }

    @Test
    void aValueWrittenThroughMemcachedOnOneGatewayIsReadThroughOkuyamaOnTheOther() throws Exception {
        try (BinaryClient onA = new BinaryClient(a.process().port());
             OkuyamaClient onB = new OkuyamaClient(b.okuyamaPort())) {
            assertEquals(0, onA.set("across", "written on A", 0, 0).status());
            assertEquals("2,true," + OkuyamaClient.b64("written on A"), onB.call("2," + OkuyamaClient.b64("across")));
            assertEquals("1,true,OK", onB.call("1," + OkuyamaClient.b64("back") + ",(B),0,"
                    + OkuyamaClient.b64("written on B")));
            assertArrayEquals(bytes("written on B"), onA.get("back").value());
        }
    }

    @Test
    void countersNeverExceedTheMaximumWithClientsOnBothGateways() throws Exception {
        int maximum = 5;
        AtomicLong granted = new AtomicLong();
        AtomicLong refused = new AtomicLong();
        ExecutorService threads = Executors.newFixedThreadPool(8);
        try {
            List<Future<?>> clients = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                int port = (i % 2 == 0 ? a : b).counterPort();
                clients.add(threads.submit(() -> {
                    try (CounterClient client = new CounterClient(port)) {
                        for (int round = 0; round < 40; round++) {
                            CounterClient.Response acquired = client.acquire("pool", 1, maximum);
                            if (acquired.status() != 0) {
                                assertEquals(0x21, acquired.status(), "only the limit may refuse");
                                refused.incrementAndGet();
                                continue;
                            }
                            granted.incrementAndGet();
                            long now = client.get("pool").u32(0);
                            assertTrue(now >= 1 && now <= maximum, "consumption " + now);
                            assertEquals(0, client.release("pool", 1).status());
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> client : clients) {
                client.get();
            }
        } finally {
            threads.shutdownNow();
        }
        assertTrue(granted.get() >= maximum, "granted " + granted.get());
        assertEquals(320, granted.get() + refused.get());
        try (CounterClient onA = new CounterClient(a.counterPort());
             CounterClient onB = new CounterClient(b.counterPort())) {
            assertEquals(0, onA.get("pool").u32(0), "everything acquired was released");
            assertEquals(0, onB.get("pool").u32(0));
        }
    }

    /** Last: it kills gateway A. */
    @Test
    void aGatewayKilledWithMinusNineHasItsAcquisitionsReleasedWhenTheirLeaseRunsOutAndNotBefore() throws Exception {
        Gateway doomed = Gateway.start(logs.resolve("doomed.log"));
        try (CounterClient onDoomed = new CounterClient(doomed.counterPort());
             CounterClient onB = new CounterClient(b.counterPort())) {
            assertEquals(0, onDoomed.acquire("leased", 3, 5).status());
            assertEquals(0, onB.acquire("leased", 2, 5).status());
            assertEquals(0x21, onB.acquire("leased", 1, 5).status(), "the maximum counts both gateways' clients");
            // Past several renewals: a live gateway's acquisitions outlast the lease.
            Thread.sleep(2 * LEASE_MS);
            assertEquals(5, onB.get("leased").u32(0));
            doomed.process().kill();
            long killed = System.currentTimeMillis();
            assertEquals(5, onB.get("leased").u32(0), "released before the lease ran out");
            while (onB.get("leased").u32(0) != 2) {
                assertTrue(System.currentTimeMillis() - killed < DEADLINE_MS, "never released");
                Thread.sleep(50);
            }
            assertTrue(System.currentTimeMillis() - killed >= LEASE_MS / 3,
                    "released " + (System.currentTimeMillis() - killed) + " ms after the kill");
            assertEquals(0, onB.acquire("leased", 3, 5).status(), "what the dead gateway held is free again");
            Thread.sleep(LEASE_MS + 500);
            assertEquals(5, onB.get("leased").u32(0), "B's own acquisitions are renewed, not lapsed");
        } finally {
            doomed.process().close();
        }
    }

    private static BinaryClient collections(Gateway gateway) throws Exception {
        BinaryClient client = new BinaryClient(gateway.process().port());
        client.hello(COLLECTIONS, XERROR, JSON);
        assertEquals(0, client.call(SELECT_BUCKET, NONE, bytes("shared"), NONE, 0).status());
        return client;
    }
}
