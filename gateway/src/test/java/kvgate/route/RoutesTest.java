package kvgate.route;

import static kvgate.testing.BinaryClient.bytes;
import static kvgate.testing.OkuyamaClient.b64;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import kvgate.config.ConfigurationException;
import kvgate.memcached.binary.BinaryStatus;
import kvgate.testing.BinaryClient;
import kvgate.testing.BinaryClient.Response;
import kvgate.testing.MpdbClient;
import kvgate.testing.OkuyamaClient;
import kvgate.testing.OneMemcached;
import kvgate.testing.TestGateway;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A gateway with two backend instances, the local store ({@code default}) and a real memcached ({@code mc}), and a
 * route tree over them. Where each key landed is read from memcached directly, not through the gateway.
 */
@Tag("servers")
class RoutesTest {
    private static final int OK = 0;
    private static final int NOT_FOUND = BinaryStatus.KEY_NOT_FOUND.code();

    @RegisterExtension
    final OneMemcached memcached = new OneMemcached();



    /** The local store as {@code default} and the memcached server as {@code mc}, plus the given route settings. */
    private Map<String, String> twoBackends(String... routeSettings) {
        Map<String, String> settings = TestGateway.with(memcached.servers().instance("mc"), "backends.mc.timeout_ms",
                "500");
        return TestGateway.with(settings, routeSettings);
    }

    @Test
    void keysOfAPrefixLiveInMemcachedAndTheOthersInTheLocalStore() throws Exception {
        try (TestGateway gateway = TestGateway.start(twoBackends("route", "split",
                "routes.split.type", "prefix", "routes.split.prefixes", "cache:=mc, cache:local:=default",
                "routes.split.default", "default"));
             BinaryClient client = new BinaryClient(gateway.port());
             BinaryClient direct = new BinaryClient(memcached.servers().port(0))) {
            // One pipelined burst over both backends: each part goes to its own backend, replies in request order.
            String[] keys = {"cache:a", "user:b", "cache:c", "cache:local:d", "user:e"};
            ByteArrayOutputStream burst = new ByteArrayOutputStream();
            for (int i = 0; i < keys.length; i++) {
                burst.write(BinaryClient.frame(BinaryClient.SET, BinaryClient.storeExtras(7, 0), bytes(keys[i]),
                        bytes("v" + i), 0, i));
            }
            client.send(burst.toByteArray());
            for (int i = 0; i < keys.length; i++) {
                Response stored = client.read();
                assertEquals(i, stored.opaque());
                assertEquals(OK, stored.status(), keys[i]);
            }
            for (int i = 0; i < keys.length; i++) {
                Response read = client.get(keys[i]);
                assertEquals(OK, read.status(), keys[i]);
                assertEquals("v" + i, read.valueText());
                assertEquals(7, read.flags());
            }
            assertEquals("v0", direct.get("cache:a").valueText());
            assertEquals("v2", direct.get("cache:c").valueText());
            assertEquals(NOT_FOUND, direct.get("user:b").status());
            assertEquals(NOT_FOUND, direct.get("user:e").status());
            assertEquals(NOT_FOUND, direct.get("cache:local:d").status(), "the longest prefix wins");

            // A flush reaches every child: both backends may hold keys of the namespace.
            assertEquals(OK, client.call(BinaryClient.FLUSH, BinaryClient.NONE, BinaryClient.NONE,
                    BinaryClient.NONE, 0).status());
            assertEquals(NOT_FOUND, direct.get("cache:a").status());
            assertEquals(NOT_FOUND, client.get("user:b").status());
        }
    }

    @Test
    void aNamespaceRouteSendsTheOkuyamaNamespaceToMemcached() throws Exception {
        try (TestGateway gateway = TestGateway.start(twoBackends("route", "byNamespace", "okuyama.namespace", "oku",
                "routes.byNamespace.type", "namespace", "routes.byNamespace.namespaces", "oku=mc, mpdb:*=mc",
                "routes.byNamespace.default", "default"));
             OkuyamaClient okuyama = new OkuyamaClient(gateway.okuyamaPort());
             BinaryClient client = new BinaryClient(gateway.port());
             BinaryClient direct = new BinaryClient(memcached.servers().port(0))) {
            assertEquals("1,true,OK", okuyama.call("1," + b64("shared") + ",(B),0," + b64("from okuyama")));
            assertEquals(OK, client.set("shared", "from memcached", 0, 0).status());
            // The memcached backend writes a key of another namespace as 0x01 <namespace> 0x02 <key>.
            Response stored = direct.call(BinaryClient.GET, BinaryClient.NONE,
                    "\u0001oku\u0002shared".getBytes(StandardCharsets.US_ASCII), BinaryClient.NONE, 0);
            assertEquals(OK, stored.status());
            assertEquals("from okuyama", stored.valueText());
            assertEquals(NOT_FOUND, direct.get("shared").status(), "the default namespace stays local");
            assertEquals("2,true," + b64("from okuyama"), okuyama.call("2," + b64("shared")));
            assertEquals("from memcached", client.get("shared").valueText());
        }
    }

    @Test
    void aScanOfANamespaceSplitByPrefixListsEachKeyFromTheChildItsPrefixSelects() throws Exception {
        Map<String, String> live = new ConcurrentHashMap<>(twoBackends("route", "split", "routes.split.type",
                "prefix", "routes.split.prefixes", "hot:=mc, cold:=mc", "routes.split.default", "default"));
        try (TestGateway gateway = TestGateway.startReloadable(live);
             MpdbClient mpdb = new MpdbClient(gateway.mpdbPort());
             BinaryClient direct = new BinaryClient(memcached.servers().port(0))) {
            assertEquals("", mpdb.call(MpdbClient.insert(1, Map.of("users.cold:1", "left behind"))).error());
            // cold: moves to the local store; the copy in memcached is stale from now on.
            live.put("routes.split.prefixes", "hot:=mc");
            gateway.gateway().reload();
            Map<String, Object> data = new LinkedHashMap<>();
            data.put("users.hot:1", "a");
            data.put("users.cold:2", "b");
            data.put("users.hot:2", "c");
            assertEquals("", mpdb.call(MpdbClient.insert(2, data)).error());
            // The memcached backend writes a key of another namespace as 0x01 <namespace> 0x02 <key>.
            assertEquals("a", direct.get("\u0001mpdb:users\u0002hot:1").valueText());
            assertEquals("left behind", direct.get("\u0001mpdb:users\u0002cold:1").valueText());

            MpdbClient.Reply bucket = mpdb.call(MpdbClient.getBucket(3, "users"));
            assertEquals("", bucket.error());
            assertEquals(Set.of("users.hot:1", "users.cold:2", "users.hot:2"), bucket.result().keySet(),
                    bucket.result().toString());
            assertEquals("b", bucket.result().get("users.cold:2").value());
        }
    }

    @Test
    void aFailoverRouteAnswersFromTheSecondBackendWhenMemcachedIsDown() throws Exception {
        Map<String, String> settings = twoBackends("route", "safe", "routes.safe.type", "failover",
                "routes.safe.children", "mc, default", "backends.mc.failure_limit", "1");
        try (TestGateway gateway = TestGateway.start(settings);
             BinaryClient client = new BinaryClient(gateway.port(), 5000);
             BinaryClient direct = new BinaryClient(memcached.servers().port(0))) {
            assertEquals(OK, client.set("first", "in memcached", 0, 0).status());
            assertEquals("in memcached", direct.get("first").valueText());
            memcached.servers().kill(0);
            assertEquals(OK, client.set("second", "in the local store", 0, 0).status());
            Response read = client.get("second");
            assertEquals(OK, read.status());
            assertEquals("in the local store", read.valueText());
            assertEquals(NOT_FOUND, client.get("first").status(), "the second backend answers, without the key");
        }
    }

    /**
     * A memcached stopped with SIGSTOP takes connections and never answers; the backend would wait its own 5 s. The
     * failover node's own 300 ms deadline moves a read on to the local store; a write's outcome is then unknown (the
     * stopped server may still apply it), so it moves on only with {@code failover_on = any_failure}.
     */
    @Test
    void aFailoverRouteWithItsOwnDeadlineMovesOnFromAStoppedServer() throws Exception {
        Map<String, String> settings = twoBackends("route", "safe", "routes.safe.type", "failover",
                "routes.safe.children", "mc, default", "routes.safe.timeout_ms", "300",
                "backends.mc.timeout_ms", "5000");
        try (TestGateway gateway = TestGateway.start(settings);
             BinaryClient client = new BinaryClient(gateway.port(), 3000)) {
            assertEquals(OK, client.set("warm", "up", 0, 0).status());
            memcached.servers().pause(0, true);
            try {
                assertEquals(NOT_FOUND, client.get("k").status(), "the local store answered the read");
                assertEquals(BinaryStatus.INTERNAL_ERROR.code(), client.set("k", "v", 0, 0).status(),
                        "a write left unanswered has an unknown outcome and stays with it");
            } finally {
                memcached.servers().pause(0, false);
            }
        }
        settings.put("routes.safe.failover_on", "any_failure");
        try (TestGateway gateway = TestGateway.start(settings);
             BinaryClient client = new BinaryClient(gateway.port(), 3000)) {
            assertEquals(OK, client.set("warm", "up", 0, 0).status());
            memcached.servers().pause(0, true);
            try {
                assertEquals(OK, client.set("k", "in the local store", 0, 0).status(), "any_failure moves a write on");
            } finally {
                memcached.servers().pause(0, false);
            }
        }
    }

    @Test
    void aNodeNamingNoRouteOrBackendIsRefused() {
        String message = refused("route", "split", "routes.split.type", "prefix",
                "routes.split.prefixes", "a:=nowhere", "routes.split.default", "default");
        assertTrue(message.contains("routes.split") && message.contains("'nowhere'"), message);
    }

    @Test
    void anUnknownNodeTypeIsRefused() {
        String message = refused("route", "x", "routes.x.type", "bogus");
        assertTrue(message.contains("routes.x.type = bogus") && message.contains("prefix"), message);
    }

    @Test
    void anUnknownBackendTypeIsRefused() {
        String message = refused("route", "b", "backends.b.type", "etcd");
        assertTrue(message.contains("backends.b.type = etcd") && message.contains("local"), message);
    }

    @Test
    void aLoopIsRefused() {
        String message = refused("route", "a", "routes.a.type", "failover", "routes.a.children", "b, default",
                "routes.b.type", "all", "routes.b.children", "a");
        assertTrue(message.contains("loops") && message.contains("a -> b -> a"), message);
    }

    @Test
    void aSelectorWithoutADefaultIsRefused() {
        String message = refused("route", "split", "routes.split.type", "prefix", "routes.split.prefixes",
                "a:=default");
        assertTrue(message.contains("routes.split") && message.contains("default is required"), message);
    }

    @Test
    void routesAndBackendsNotReachedFromTheRootAreRefused() {
        String message = refused("route", "default", "backends.spare.type", "local", "backends.spare.path",
                ":memory:", "routes.old.type", "all", "routes.old.children", "default");
        assertTrue(message.contains("backends.spare") && message.contains("routes.old")
                && message.contains("not reached"), message);
    }

    @Test
    void backendsWithoutARootAreRefused() {
        String message = refused("backends.spare.type", "local", "backends.spare.path", ":memory:");
        assertTrue(message.contains("'route' is empty"), message);
    }

    @Test
    void anInstancesSettingsAreValidatedAgainstItsType() {
        String unknown = refused("route", "two", "backends.two.type", "local", "backends.two.bogus", "1");
        assertTrue(unknown.contains("'backends.two.bogus'"), unknown);
        String bad = refused("route", "two", "backends.two.type", "local", "backends.two.commit_interval_ms",
                "soon");
        assertTrue(bad.contains("backends.two.commit_interval_ms") && bad.contains("soon"), bad);
    }

    private static String refused(String... settings) {
        Map<String, String> overrides = new HashMap<>();
        for (int i = 0; i < settings.length; i += 2) {
            overrides.put(settings[i], settings[i + 1]);
        }
        return assertThrows(ConfigurationException.class, () -> TestGateway.start(overrides)).getMessage();
    }
}
