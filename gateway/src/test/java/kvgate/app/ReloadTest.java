package kvgate.app;

import static kvgate.testing.BinaryClient.bytes;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import kvgate.config.ConfigurationException;
import kvgate.memcached.binary.BinaryStatus;
import kvgate.route.BackendRoute;
import kvgate.testing.AdminClient;
import kvgate.testing.BinaryClient;
import kvgate.testing.BinaryClient.Response;
import kvgate.testing.ChildGateway;
import kvgate.testing.OneMemcached;
import kvgate.testing.Ports;
import kvgate.testing.TestGateway;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Reloading the route tree of a running gateway: the local store ({@code default}) and a real memcached
 * ({@code mc}), with the configuration changed under the gateway and read again. Where a key landed is read from
 * memcached directly.
 */
@Tag("servers")
class ReloadTest {
    private static final int OK = 0;
    private static final int NOT_FOUND = BinaryStatus.KEY_NOT_FOUND.code();

    @RegisterExtension
    final OneMemcached memcached = new OneMemcached();
    private final Map<String, String> live = new ConcurrentHashMap<>();

    @BeforeEach
    void configure() {
        live.putAll(memcached.servers().instance("mc"));
        live.put("route", "split");
        live.put("routes.split.type", "prefix");
        live.put("routes.split.prefixes", "cache:=mc");
        live.put("routes.split.default", "default");
    }


    @Test
    void aReloadMovesAPrefixToAnotherBackendOnTheSameConnections() throws Exception {
        live.put("routes.split.prefixes", "cache:=default, hot:=mc");
        try (TestGateway gateway = TestGateway.startReloadable(live);
             BinaryClient client = new BinaryClient(gateway.port());
             BinaryClient direct = new BinaryClient(memcached.servers().port(0))) {
            assertEquals(OK, client.set("cache:a", "local", 0, 0).status());
            assertEquals(NOT_FOUND, direct.get("cache:a").status());
            BackendRoute mcBefore = instance(gateway, "mc");

            live.put("routes.split.prefixes", "cache:=mc");
            String summary = gateway.gateway().reload();
            assertTrue(summary.contains("kept [mc, default]") || summary.contains("kept [default, mc]"), summary);

            // The same client connection, now on the new tree.
            assertEquals(OK, client.set("cache:b", "remote", 0, 0).status());
            assertEquals("remote", direct.get("cache:b").valueText());
            assertEquals(NOT_FOUND, client.get("cache:a").status(), "cache: now reads memcached");
            assertTrue(instance(gateway, "mc") == mcBefore, "an unchanged instance is kept, connections and all");
        }
    }

    @Test
    void anInstanceWithChangedSettingsIsOpenedAnewAndTheOldOneClosedOnceIdle() throws Exception {
        try (TestGateway gateway = TestGateway.startReloadable(live);
             BinaryClient client = new BinaryClient(gateway.port())) {
            assertEquals(OK, client.set("cache:x", "1", 0, 0).status());
            BackendRoute before = instance(gateway, "mc");
            live.put("backends.mc.timeout_ms", "1500");
            String summary = gateway.gateway().reload();
            assertTrue(summary.contains("opened [mc]") && summary.contains("closed once idle [mc]"), summary);
            BackendRoute after = instance(gateway, "mc");
            assertTrue(after != before);
            assertEquals("1", client.get("cache:x").valueText(), "the new instance reaches the same server");
        }
    }

    @Test
    void aReplacedTreeIsClosedOnlyOnceTheWritesAnAllNodeSentOnAfterItsAnswerAreDone() throws Exception {
        live.clear();
        live.putAll(memcached.servers().instance("mc"));
        live.put("backends.mc.timeout_ms", "5000");
        live.put("route", "both");
        live.put("routes.both.type", "all");
        live.put("routes.both.children", "default, mc");
        try (TestGateway gateway = TestGateway.startReloadable(live);
             BinaryClient client = new BinaryClient(gateway.port());
             BinaryClient direct = new BinaryClient(memcached.servers().port(0))) {
            assertEquals(OK, client.set("k", "v1", 0, 0).status());
            memcached.servers().pause(0, true);
            try {
                assertEquals(OK, client.set("k", "v2", 0, 0).status(), "the local store answers; mc's write waits");
                live.remove("routes.both.type");
                live.remove("routes.both.children");
                live.put("route", "default");
                live.keySet().removeIf(key -> key.startsWith("backends.mc."));
                String summary = gateway.gateway().reload();
                assertTrue(summary.contains("closed once idle [mc]"), summary);
                Thread.sleep(300);
                assertEquals(1, gateway.gateway().treesRetiring(), "mc's write is under way: its store stays open");
            } finally {
                memcached.servers().pause(0, false);
            }
            long deadline = System.currentTimeMillis() + 5000;
            while (gateway.gateway().treesRetiring() > 0 && System.currentTimeMillis() < deadline) {
                Thread.sleep(20);
            }
            assertEquals(0, gateway.gateway().treesRetiring(), "closed once the write was answered");
            assertEquals("v2", direct.get("k").valueText());
        }
    }

    @Test
    void aBadConfigurationIsRefusedWithWhyAndTheTreeInForceStays() throws Exception {
        try (TestGateway gateway = TestGateway.startReloadable(live);
             BinaryClient client = new BinaryClient(gateway.port());
             BinaryClient direct = new BinaryClient(memcached.servers().port(0))) {
            var inForce = gateway.gateway().routes();

            live.put("routes.split.default", "nowhere");
            ConfigurationException dangling = assertThrows(ConfigurationException.class,
                    () -> gateway.gateway().reload());
            assertTrue(dangling.getMessage().contains("nowhere"), dangling.getMessage());
            live.put("routes.split.default", "default");

            live.put("memcached.max_frame", "1m");
            ConfigurationException fixed = assertThrows(ConfigurationException.class,
                    () -> gateway.gateway().reload());
            assertTrue(fixed.getMessage().contains("memcached.max_frame (32m -> 1m)"), fixed.getMessage());
            live.remove("memcached.max_frame");

            live.put("routes.split.fraction", "1");
            ConfigurationException unknown = assertThrows(ConfigurationException.class,
                    () -> gateway.gateway().reload());
            assertTrue(unknown.getMessage().contains("routes.split.fraction"), unknown.getMessage());
            live.remove("routes.split.fraction");

            // An instance that cannot open refuses the whole tree; the one opened beside it is closed again.
            live.put("backends.spare.type", "local");
            live.put("backends.spare.path", ":memory:");
            live.put("backends.broken.type", "memcached");
            live.put("backends.broken.servers", "not a server list");
            live.put("routes.split.prefixes", "cache:=mc, spare:=spare, broken:=broken");
            Exception opening = assertThrows(Exception.class, () -> gateway.gateway().reload());
            assertTrue(opening.getMessage().contains("broken"), opening.getMessage());

            assertTrue(gateway.gateway().routes() == inForce, "the tree in force stays");
            assertEquals(OK, client.set("cache:still", "here", 0, 0).status());
            assertEquals("here", direct.get("cache:still").valueText());
            assertEquals(OK, client.set("local:still", "here", 0, 0).status());
            assertEquals(NOT_FOUND, direct.get("local:still").status());
        }
    }

    /**
     * Four connections pipeline sets and gets without pause while the tree is reloaded twenty times, each reload
     * opening a new memcached instance (its timeout changes) and retiring the one before once its operations have
     * finished. Every request is answered, and answered well.
     */
    @Test
    void reloadsDuringTrafficLoseNoRequest() throws Exception {
        try (TestGateway gateway = TestGateway.startReloadable(live)) {
            AtomicBoolean running = new AtomicBoolean(true);
            ExecutorService clients = Executors.newFixedThreadPool(4);
            List<Future<Long>> answered = new ArrayList<>();
            for (int c = 0; c < 4; c++) {
                int id = c;
                answered.add(clients.submit(() -> traffic(gateway.port(), id, running)));
            }
            try {
                Thread.sleep(200);
                for (int i = 0; i < 20; i++) {
                    live.put("backends.mc.timeout_ms", Integer.toString(1000 + i % 2));
                    live.put("routes.split.prefixes", i % 3 == 0 ? "cache:=mc" : "cache:=mc, other:=mc");
                    gateway.gateway().reload();
                    Thread.sleep(50);
                }
            } finally {
                running.set(false);
                clients.shutdown();
            }
            long total = 0;
            for (Future<Long> client : answered) {
                total += client.get(60, TimeUnit.SECONDS);
            }
            assertTrue(total > 1000, "traffic ran throughout: " + total + " requests answered");
            assertTrue(clients.awaitTermination(10, TimeUnit.SECONDS));
            // Twenty instances were opened, each with a connection per network thread; the replaced ones are
            // closed once idle, so memcached soon sees only the one in force (two) and this test's own client.
            try (BinaryClient direct = new BinaryClient(memcached.servers().port(0))) {
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                long connections;
                while ((connections = Long.parseLong(direct.stats("").get("curr_connections"))) > 4
                        && System.nanoTime() < deadline) {
                    Thread.sleep(50);
                }
                assertTrue(connections <= 4, connections + " connections: replaced instances were not closed");
            }
        }
    }

    /** Bursts of 16 sets and 16 gets on one connection until told to stop; every reply must be right. */
    private static long traffic(int port, int id, AtomicBoolean running) throws Exception {
        long answered = 0;
        try (BinaryClient client = new BinaryClient(port, 10_000)) {
            for (int round = 0; running.get(); round++) {
                ByteArrayOutputStream burst = new ByteArrayOutputStream();
                for (int i = 0; i < 16; i++) {
                    String key = (i % 2 == 0 ? "cache:" : "other:") + id + ":" + i;
                    burst.write(BinaryClient.frame(BinaryClient.SET, BinaryClient.storeExtras(0, 0), bytes(key),
                            bytes(round + ":" + i), 0, i));
                    burst.write(BinaryClient.frame(BinaryClient.GET, BinaryClient.NONE, bytes(key),
                            BinaryClient.NONE, 0, 100 + i));
                }
                client.send(burst.toByteArray());
                for (int i = 0; i < 16; i++) {
                    Response stored = client.read();
                    assertEquals(i, stored.opaque());
                    assertEquals(OK, stored.status(), "set " + i + " in round " + round);
                    Response read = client.read();
                    assertEquals(100 + i, read.opaque());
                    assertEquals(OK, read.status(), "get " + i + " in round " + round);
                    assertEquals(round + ":" + i, read.valueText(), "a read follows the write before it");
                    answered += 2;
                }
            }
        }
        return answered;
    }

    @Test
    void sigHupReloadsTheFileAndABadFileLeavesTheTreeInForce(@TempDir Path directory) throws Exception {
        int admin = Ports.free();
        Path file = directory.resolve("gateway.conf");
        String common = "local.path = :memory:\nadmin.enable = true\nadmin.bind = 127.0.0.1\nadmin.port = " + admin
                + "\n";
        Files.writeString(file, common + "backends.mc.type = memcached\nbackends.mc.servers = "
                + memcached.servers().serverList() + "\nroute = mc\n");
        try (ChildGateway child = ChildGateway.start(directory.resolve("gateway.log"), "config=" + file);
             BinaryClient client = new BinaryClient(child.port());
             BinaryClient direct = new BinaryClient(memcached.servers().port(0))) {
            child.awaitListening(admin);
            assertEquals(OK, client.set("k", "to memcached", 0, 0).status());
            assertEquals("to memcached", direct.get("k").valueText());

            Files.writeString(file, common + "route = default\n");
            child.signal("HUP");
            awaitRoute(admin, "route = default");
            assertEquals(NOT_FOUND, client.get("k").status(), "the same connection now reads the local store");

            Files.writeString(file, common + "route = nowhere\n");
            child.signal("HUP");
            Thread.sleep(500);
            try (AdminClient adminClient = new AdminClient(admin)) {
                assertEquals("route = default", adminClient.call("routes").get(0), "a bad file changes nothing");
            }
            String log = Files.readString(directory.resolve("gateway.log"));
            assertTrue(log.contains("reload refused") && log.contains("nowhere"), log);
            assertEquals(NOT_FOUND, client.get("k").status(), "the client's connection stayed open throughout");
        }
    }

    /** A backend plugin dropped into the plugins directory of a running gateway is loaded by the next reload. */
    @Test
    void aPluginDroppedIntoTheDirectoryIsLoadedByAReload(@TempDir Path plugins) throws Exception {
        Path built = TestGateway.pluginsDirectory();
        Path local = zip(built, "kvgate-backend-local");
        Files.copy(local, plugins.resolve(local.getFileName()));
        Map<String, String> alone = new ConcurrentHashMap<>(Map.of("plugins.dir", plugins.toString()));
        try (TestGateway gateway = TestGateway.startReloadable(alone);
             BinaryClient client = new BinaryClient(gateway.port());
             BinaryClient direct = new BinaryClient(memcached.servers().port(0))) {
            alone.putAll(live);
            ConfigurationException missing = assertThrows(ConfigurationException.class,
                    () -> gateway.gateway().reload());
            assertTrue(missing.getMessage().contains("no backend plugin of that type"), missing.getMessage());

            Files.writeString(plugins.resolve("broken.zip"), "not a zip");
            Exception broken = assertThrows(Exception.class, () -> gateway.gateway().reload());
            assertTrue(broken.getMessage().contains("broken"), broken.getMessage());
            Files.delete(plugins.resolve("broken.zip"));

            Path memcachedPlugin = zip(built, "kvgate-backend-memcached");
            Files.copy(memcachedPlugin, plugins.resolve(memcachedPlugin.getFileName()));
            String summary = gateway.gateway().reload();
            assertTrue(summary.contains("plugins added [memcached-backend]"), summary);
            assertEquals(OK, client.set("cache:new", "via the new plugin", 0, 0).status());
            assertEquals("via the new plugin", direct.get("cache:new").valueText());
        }
    }

    private static Path zip(Path directory, String artifact) throws Exception {
        try (var files = Files.list(directory)) {
            return files.filter(file -> file.getFileName().toString().startsWith(artifact)
                    && file.getFileName().toString().endsWith(".zip")).findFirst().orElseThrow();
        }
    }

    private static void awaitRoute(int admin, String first) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        try (AdminClient client = new AdminClient(admin)) {
            while (!client.call("routes").get(0).equals(first)) {
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("the route tree did not become " + first);
                }
                Thread.sleep(50);
            }
        }
    }

    private static BackendRoute instance(TestGateway gateway, String name) {
        return gateway.gateway().routes().instances().stream().filter(instance -> instance.name().equals(name))
                .findFirst().orElseThrow();
    }
}
