package kvgate.plugins;

import static kvgate.testing.BinaryClient.COLLECTIONS;
import static kvgate.testing.BinaryClient.GET;
import static kvgate.testing.BinaryClient.INCREMENT;
import static kvgate.testing.BinaryClient.NONE;
import static kvgate.testing.BinaryClient.SET;
import static kvgate.testing.BinaryClient.STAT;
import static kvgate.testing.BinaryClient.arithmeticExtras;
import static kvgate.testing.BinaryClient.bytes;
import static kvgate.testing.BinaryClient.collectionKey;
import static kvgate.testing.BinaryClient.frame;
import static kvgate.testing.BinaryClient.storeExtras;
import static kvgate.testing.OkuyamaClient.b64;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;
import java.util.zip.ZipFile;
import kvgate.config.ConfigurationException;
import kvgate.net.GatewayVersion;
import kvgate.testing.BinaryClient;
import kvgate.testing.BinaryClient.Response;
import kvgate.testing.CounterClient;
import kvgate.testing.ExamplePlugin;
import kvgate.testing.MpdbClient;
import kvgate.testing.MpdbClient.Reply;
import kvgate.testing.OkuyamaClient;
import kvgate.testing.TestGateway;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code plugins/example-backend}, a third-party plugin built outside the reactor against the published SPI alone
 * (see {@link ExamplePlugin}), dropped into a plugins directory of a gateway started on {@code backend = example}
 * and {@code counter.store = example}, and used through all four protocols over real sockets; and dropped into a
 * running gateway and taken into use by a reload.
 */
class ExampleBackendPluginTest {
    private static final int MAX_ITEMS = 100_000;
    private static TestGateway gateway;

    @BeforeAll
    static void start() throws Exception {
        gateway = TestGateway.start(settings(Map.of("example.max_items", Integer.toString(MAX_ITEMS))));
    }

    @AfterAll
    static void stop() {
        if (gateway != null) {
            gateway.close();
        }
    }

    private static Map<String, String> settings(Map<String, String> overrides) throws Exception {
        Map<String, String> settings = new HashMap<>(ExamplePlugin.settings());
        settings.putAll(overrides);
        return settings;
    }

    @Test
    void thePluginIsBuiltOnItsOwnAgainstTheSpiAndItsZipHoldsOnlyItsOwnJar() throws Exception {
        String pom = ExamplePlugin.pom();
        assertFalse(pom.contains("<parent>"), "the example has no parent in this repository");
        assertTrue(pom.contains("<kvgate.version>" + GatewayVersion.VERSION + "</kvgate.version>"),
                "the example is built for this version of the SPI");
        assertEquals(List.of("kvgate-spi", "pf4j"), artifactIds(pom), "its only dependencies");
        assertThrows(ClassNotFoundException.class, () -> Class.forName("org.example.kvgate.ExampleBackendFactory"),
                "the example must not be on the gateway's class path");
        Path zip;
        try (Stream<Path> zips = Files.list(ExamplePlugin.pluginsDirectory())) {
            zip = zips.findFirst().orElseThrow();
        }
        List<String> entries = new ArrayList<>();
        try (ZipFile plugin = new ZipFile(zip.toFile())) {
            plugin.stream().filter(entry -> !entry.isDirectory()).forEach(entry -> entries.add(entry.getName()));
        }
        assertEquals(List.of("lib/kvgate-example-backend-1.0.0.jar", "plugin.properties"),
                entries.stream().sorted().toList(), "the SPI and PF4J come from the gateway, not the zip");
    }

    @Test
    void theGatewayRunsOnThePluginAndShowsItsStats() throws Exception {
        try (BinaryClient c = new BinaryClient(gateway.port())) {
            Map<String, String> before = stats(c);
            assertEquals("example", before.get("backend"));
            assertEquals("[COUNTERS, KEEP_EXPIRY, SCAN, ARITHMETIC_EXPIRY, CHOSEN_CAS]", before.get("backend_capabilities"));
            assertEquals(Integer.toString(MAX_ITEMS), before.get("example_max_items"), "the plugin's own stat");
            assertEquals(0, c.set("stats-one", "1", 0, 0).status());
            assertEquals(0, c.set("stats-two", "2", 0, 0).status());
            assertEquals(2, Long.parseLong(stats(c).get("curr_items")) - Long.parseLong(before.get("curr_items")),
                    "the plugin counts what the gateway stored in it");
        }
    }

    /**
     * The zip dropped into the plugins directory of a gateway already running on the local store, then taken into
     * use by a reload that makes it the backend: the same client connections go on, now served by the plugin.
     */
    @Test
    void droppedIntoARunningGatewayThePluginIsTakenIntoUseByAReload(@TempDir Path dropIn) throws Exception {
        Map<String, String> live = new ConcurrentHashMap<>();
        live.put("plugins.dir", TestGateway.pluginsDirectory().toAbsolutePath() + "," + dropIn);
        try (TestGateway running = TestGateway.startReloadable(live);
             BinaryClient c = new BinaryClient(running.port());
             OkuyamaClient okuyama = new OkuyamaClient(running.okuyamaPort());
             MpdbClient mpdb = new MpdbClient(running.mpdbPort())) {
            assertEquals("local", stats(c).get("backend"));
            assertEquals(0, c.set("before", "on the local store", 0, 0).status());

            try (Stream<Path> built = Files.list(ExamplePlugin.pluginsDirectory())) {
                Path zip = built.filter(file -> file.toString().endsWith(".zip")).findFirst().orElseThrow();
                Files.copy(zip, dropIn.resolve(zip.getFileName()));
            }
            live.put("backend", "example");
            String summary = running.gateway().reload();
            assertTrue(summary.contains("plugins added [example-backend]"), summary);

            assertEquals("example", stats(c).get("backend"));
            assertEquals(0x0001, c.get("before").status(), "the example store starts empty");
            assertEquals(0, c.set("after", "in the plugin", 0, 0).status());
            assertEquals("2,true," + b64("in the plugin"), okuyama.call("2," + b64("after")));
            Map<String, Object> data = new LinkedHashMap<>();
            data.put("dropped.k", "v");
            assertEquals("", mpdb.call(MpdbClient.insert(1, data)).error());
            assertEquals("v", mpdb.call(MpdbClient.getBucket(2, "dropped")).result().get("dropped.k").value());
            assertEquals(2, Long.parseLong(stats(c).get("curr_items")), "the plugin holds what was stored since");
        }
    }

    @Test
    void memcachedBinaryClientsStoreReadCountAndCheckCas() throws Exception {
        try (BinaryClient c = new BinaryClient(gateway.port())) {
            assertEquals(0, c.set("mc-key", "first", 7, 0).status());
            Response read = c.get("mc-key");
            assertEquals("first", read.valueText());
            assertEquals(7, read.flags());
            Response stale = c.call(SET, storeExtras(0, 0), bytes("mc-key"), bytes("late"), read.cas() + 1);
            assertEquals(0x0002, stale.status(), "a different CAS is refused");
            assertEquals(0, c.call(SET, storeExtras(0, 0), bytes("mc-key"), bytes("second"), read.cas()).status());
            assertEquals("second", c.get("mc-key").valueText());

            assertEquals(10, c.call(INCREMENT, arithmeticExtras(5, 10, 0), bytes("mc-n"), NONE, 0).number(),
                    "created with the initial value");
            assertEquals(15, c.call(INCREMENT, arithmeticExtras(5, 10, 0), bytes("mc-n"), NONE, 0).number());
            assertEquals(0x0006, c.call(INCREMENT, arithmeticExtras(1, 0, 0), bytes("mc-key"), NONE, 0).status(),
                    "not a number");
        }
    }

    @Test
    void couchbaseCollectionsKeepTheirItemsApartInThePlugin() throws Exception {
        try (BinaryClient c = new BinaryClient(gateway.port())) {
            assertArrayEquals(new int[] {COLLECTIONS}, c.hello(COLLECTIONS));
            assertEquals(0, c.setManifest("{\"uid\":\"1\",\"scopes\":[{\"name\":\"_default\",\"uid\":\"0\","
                    + "\"collections\":[{\"name\":\"_default\",\"uid\":\"0\"},{\"name\":\"orders\",\"uid\":\"8\"}]}]}")
                    .status());
            assertEquals(0, c.call(SET, storeExtras(0, 0), collectionKey(8, "order-1"), bytes("shipped"), 0).status());
            assertEquals("shipped", c.call(GET, NONE, collectionKey(8, "order-1"), NONE, 0).valueText());
            assertEquals(0x0001, c.call(GET, NONE, collectionKey(0, "order-1"), NONE, 0).status(),
                    "the default collection has no such item");
        }
    }

    @Test
    void okuyamaClientsStoreReadAndUseTagsAndSearchKeptByTheGateway() throws Exception {
        try (OkuyamaClient c = new OkuyamaClient(gateway.okuyamaPort());
             BinaryClient memcached = new BinaryClient(gateway.port())) {
            String key = b64("ok-key");
            String tag = b64("ok-tag");
            assertEquals("1,true,OK", c.call("1," + key + "," + tag + ",0," + b64("tagged value")));
            assertEquals("2,true," + b64("tagged value"), c.call("2," + key));
            assertEquals("tagged value", memcached.get("ok-key").valueText(), "one store for both protocols");
            assertEquals("4,true," + key, c.call("3," + tag + ",true"));

            String group = b64("example-group");
            String doc = b64("ok-doc");
            assertEquals("42,true,OK", c.call("42," + doc + ",(B),0," + b64("plugins store values") + "," + group
                    + ",3,1"));
            assertEquals("43,true," + doc, c.call("43," + b64("store") + ",1," + group + ",3"));
            assertEquals("43,false,", c.call("43," + b64("absent") + ",1," + group + ",3"));
        }
    }

    @Test
    void mpdbClientsInsertGetAndListABucketScannedByThePlugin() throws Exception {
        try (MpdbClient c = new MpdbClient(gateway.mpdbPort())) {
            Map<String, Object> data = new LinkedHashMap<>();
            data.put("sensors.kitchen", "21.5");
            data.put("sensors.hall", 19L);
            assertEquals("", c.call(MpdbClient.insert(1, data)).error());

            Reply read = c.call(MpdbClient.get(2, "sensors.kitchen", "sensors.garage"));
            assertEquals("", read.error());
            assertEquals("21.5", read.result().get("sensors.kitchen").value());
            assertNull(read.result().get("sensors.garage").value());

            Reply bucket = c.call(MpdbClient.getBucket(3, "sensors"));
            assertEquals("", bucket.error());
            assertEquals(Map.of("sensors.kitchen", "21.5", "sensors.hall", BigInteger.valueOf(19)),
                    values(bucket));
            assertEquals("Bucket does not exist", c.call(MpdbClient.getBucket(4, "nothing-here")).error());
        }
    }

    @Test
    void counterClientsAcquireAndReleaseCountersKeptByThePlugin() throws Exception {
        try (CounterClient c = new CounterClient(gateway.counterPort());
             BinaryClient memcached = new BinaryClient(gateway.port())) {
            long countersBefore = Long.parseLong(stats(memcached).get("objects"));
            assertEquals(3, c.acquire("example-seats", 3, 4).u32(0));
            assertEquals(0x21, c.acquire("example-seats", 2, 4).status(), "beyond the maximum");
            assertEquals(0, c.release("example-seats", 1).status());
            assertEquals(2, c.get("example-seats").u32(0));
            try (CounterClient other = new CounterClient(gateway.counterPort())) {
                assertEquals(0x22, other.release("example-seats", 1).status(), "released only by its holder");
            }
            assertEquals(countersBefore + 1, Long.parseLong(stats(memcached).get("objects")),
                    "the plugin reports the counter it keeps");
        }
    }

    @Test
    void thePluginsOwnSettingsAreValidatedAndObeyed() throws Exception {
        ConfigurationException bad = assertThrows(ConfigurationException.class,
                () -> TestGateway.start(settings(Map.of("example.max_items", "lots"))));
        assertTrue(bad.getMessage().contains("example.max_items") && bad.getMessage().contains("lots"),
                bad.getMessage());
        try (TestGateway small = TestGateway.start(settings(Map.of("example.max_items", "2")));
             BinaryClient c = new BinaryClient(small.port())) {
            assertEquals(0, c.set("full-1", "a", 0, 0).status());
            assertEquals(0, c.set("full-2", "b", 0, 0).status());
            assertEquals(0x0086, c.set("full-3", "c", 0, 0).status(), "a new key beyond example.max_items");
            assertEquals(0, c.set("full-1", "replaced", 0, 0).status(), "a key already held is replaced");
            assertEquals("replaced", c.get("full-1").valueText());
        }
    }

    private static Map<String, String> stats(BinaryClient c) throws Exception {
        c.send(frame(STAT, NONE, NONE, NONE, 0, 1));
        Map<String, String> stats = new HashMap<>();
        for (Response r = c.read(); r.key().length > 0; r = c.read()) {
            stats.put(r.keyText(), r.valueText());
        }
        return stats;
    }

    private static Map<String, Object> values(Reply reply) {
        Map<String, Object> values = new HashMap<>();
        reply.result().forEach((key, typed) -> values.put(key, typed.value()));
        return values;
    }

    /** The artifactIds of the pom's dependencies, in order. */
    private static List<String> artifactIds(String pom) {
        String dependencies = pom.substring(pom.indexOf("<dependencies>"), pom.indexOf("</dependencies>"));
        List<String> ids = new ArrayList<>();
        for (String part : dependencies.split("<artifactId>")) {
            if (part.contains("</artifactId>")) {
                ids.add(part.substring(0, part.indexOf("</artifactId>")));
            }
        }
        return ids;
    }
}
