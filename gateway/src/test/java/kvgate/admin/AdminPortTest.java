package kvgate.admin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import kvgate.testing.AdminClient;
import kvgate.testing.BinaryClient;
import kvgate.testing.OneMemcached;
import kvgate.testing.TestGateway;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The admin port over a socket, on a gateway with the local store ({@code default}) and a real memcached. */
@Tag("servers")
class AdminPortTest {
    @RegisterExtension
    final OneMemcached memcached = new OneMemcached();



    private Map<String, String> settings() {
        Map<String, String> settings = new HashMap<>(memcached.servers().instance("mc"));
        settings.put("admin.enable", "true");
        settings.put("admin.bind", "127.0.0.1");
        settings.put("admin.port", "0");
        settings.put("route", "top");
        settings.put("routes.top.type", "namespace");
        settings.put("routes.top.namespaces", "mpdb:*=mc, oku=safe");
        settings.put("routes.top.default", "split");
        settings.put("routes.split.type", "prefix");
        settings.put("routes.split.prefixes", "session:=mc");
        settings.put("routes.split.default", "default");
        settings.put("routes.safe.type", "failover");
        settings.put("routes.safe.children", "mc, default");
        settings.put("okuyama.namespace", "oku");
        return settings;
    }

    @Test
    void explainPrintsThePathThroughTheTreeForEachProtocol() throws Exception {
        try (TestGateway gateway = TestGateway.start(settings());
             AdminClient admin = new AdminClient(gateway.gateway().port("admin"))) {
            assertEquals(List.of(
                    "get of key session:42 in namespace default (memcached default)",
                    "route = top",
                    "top (route namespace): namespace default matches nothing: the default",
                    "  split (route prefix): key prefix 'session:' matches",
                    "    mc (backend memcached): backend instance of type memcached [SHARED]: sent to the backend",
                    "END"), admin.call("explain memcached default session:42"));

            List<String> user = admin.call("explain memcached default:_default._default user:1 set");
            assertEquals("  split (route prefix): no key prefix matches: the default", user.get(3));
            assertTrue(user.get(4).startsWith("    default (backend local): backend instance of type local"),
                    user.get(4));

            List<String> okuyama = admin.call("explain okuyama anything");
            assertEquals("top (route namespace): namespace oku is listed", okuyama.get(2));
            assertEquals("  safe (route failover): tries each in order, the next after a temporary failure",
                    okuyama.get(3));
            assertTrue(okuyama.get(4).startsWith("    mc (backend memcached)"), okuyama.get(4));
            assertTrue(okuyama.get(5).startsWith("    default (backend local)"), okuyama.get(5));

            List<String> mpdb = admin.call("explain mpdb users k1 scan");
            assertEquals("scan in namespace mpdb:users (MPDB users)", mpdb.get(0));
            assertEquals("top (route namespace): namespace mpdb:users matches mpdb:*", mpdb.get(2));
            assertTrue(mpdb.get(3).contains("carried out by the gateway's generic layer"), mpdb.get(3));

            List<String> flush = admin.call("explain namespace default - flush");
            assertEquals("  split (route prefix): a flush goes to every child", flush.get(3));
            assertEquals(7, flush.size(), flush.toString());
        }
    }

    @Test
    void mistakesGetAnErrorLineAndTheConnectionGoesOn() throws Exception {
        try (TestGateway gateway = TestGateway.start(settings());
             AdminClient admin = new AdminClient(gateway.gateway().port("admin"))) {
            assertEquals(List.of("ERROR unknown command 'frobnicate'; try help"), admin.call("frobnicate"));
            assertTrue(admin.call("explain gopher default k").get(0).startsWith("ERROR explain: unknown protocol"));
            assertTrue(admin.call("explain memcached nosuchbucket k").get(0).startsWith("ERROR no bucket"));
            assertTrue(admin.call("explain memcached default:app.users k").get(0)
                    .startsWith("ERROR bucket default has no collection 'app.users'"));
            assertTrue(admin.call("explain memcached default k frob").get(0).startsWith("ERROR unknown operation"));
            assertTrue(admin.call("explain namespace bad~name k").get(0).startsWith("ERROR namespace name"));
            assertTrue(admin.call("explain mpdb node:x k").get(0).startsWith("ERROR node:<id>"));
            assertTrue(admin.call("explain memcached default").get(0).startsWith("ERROR explain memcached: expected"));
            assertTrue(admin.call("help").stream().anyMatch(line -> line.startsWith("reload")));
            assertTrue(admin.call("version").get(0).startsWith("VERSION "));
            assertEquals("route = top", admin.call("routes").get(0));

            admin.send("x".repeat(5000) + "\r\n");
            assertEquals(List.of("ERROR request line too long"), admin.reply());
            assertTrue(admin.closedByPeer());
        }
    }

    @Test
    void statsListEveryMeter() throws Exception {
        try (TestGateway gateway = TestGateway.start(settings());
             AdminClient admin = new AdminClient(gateway.gateway().port("admin"));
             BinaryClient client = new BinaryClient(gateway.port())) {
            client.set("a", "1", 0, 0);
            client.get("a");
            client.get("missing");
            List<String> stats = admin.call("stats");
            assertTrue(stats.contains("kvgate.operations{status=ok,verb=get} 1"), stats.toString());
            assertTrue(stats.contains("kvgate.connections.current{protocol=memcached} 1"), stats.toString());
            assertTrue(stats.contains("backend.default.curr_items 1"), "the local store's own: " + stats);
            assertTrue(stats.stream().anyMatch(line -> line.startsWith("backend.default.bytes ")), stats.toString());
            assertTrue(stats.stream().noneMatch(line -> line.endsWith(" 0")), "zeros are left out: " + stats);
        }
    }

    @Test
    void reloadThroughTheAdminPortAndTheAdminScript() throws Exception {
        Map<String, String> live = new ConcurrentHashMap<>(settings());
        try (TestGateway gateway = TestGateway.startReloadable(live);
             AdminClient admin = new AdminClient(gateway.gateway().port("admin"))) {
            live.put("routes.split.prefixes", "session:=mc, cart:=mc");
            List<String> reloaded = admin.call("reload");
            assertTrue(reloaded.get(0).startsWith("OK route tree replaced"), reloaded.toString());
            assertEquals("  split (route prefix): key prefix 'cart:' matches",
                    admin.call("explain memcached default cart:1").get(3));

            live.put("routes.split.default", "nowhere");
            List<String> refused = admin.call("reload");
            assertEquals(1, refused.size());
            assertTrue(refused.get(0).startsWith("ERROR reload refused, the configuration in force stays:")
                    && refused.get(0).contains("nowhere"), refused.get(0));

            Path script = Path.of(System.getProperty("kvgate.test.conf")).getParent().getParent().resolve("bin")
                    .resolve("admin");
            String address = "127.0.0.1:" + gateway.gateway().port("admin");
            Ran explained = run(address, script.toString(), "explain", "memcached", "default", "cart:9");
            assertEquals(0, explained.exit(), explained.output());
            assertTrue(explained.output().contains("key prefix 'cart:' matches")
                    && !explained.output().contains("END"), explained.output());
            Ran refusedByScript = run(address, script.toString(), "reload");
            assertEquals(1, refusedByScript.exit(), refusedByScript.output());
            assertTrue(refusedByScript.output().contains("nowhere"), refusedByScript.output());
        }
    }

    private record Ran(int exit, String output) {
    }

    private static Ran run(String address, String... command) throws Exception {
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        builder.environment().put("KVGATE_ADMIN", address);
        Process process = builder.start();
        String output = new String(process.getInputStream().readAllBytes());
        assertTrue(process.waitFor(10, TimeUnit.SECONDS));
        return new Ran(process.exitValue(), output);
    }
}
