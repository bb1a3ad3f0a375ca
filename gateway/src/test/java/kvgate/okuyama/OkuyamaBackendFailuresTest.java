package kvgate.okuyama;

import static kvgate.testing.OkuyamaClient.b64;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import kvgate.testing.OkuyamaClient;
import kvgate.testing.OkuyamaCluster;
import kvgate.testing.TestGateway;
import org.junit.jupiter.api.Test;

/**
 * The okuyama backend when MasterNodes fail: a master that is down passes its requests to the next one, as okuyama's
 * own client moves on; a master that takes requests and never answers them fails them after the timeout, without
 * holding the client; a master that comes back is used again.
 */
class OkuyamaBackendFailuresTest {

    /** A port nothing listens on. */
    private static int deadPort() throws Exception {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    @Test
    void aMasterThatIsDownPassesItsRequestsToTheNext() throws Exception {
        try (OkuyamaCluster cluster = OkuyamaCluster.start();
             TestGateway gateway = TestGateway.start(Map.of("backend", "okuyama",
                     "okuyama.masters", "127.0.0.1:" + deadPort() + "," + cluster.address(),
                     "okuyama.failure_limit", "2", "okuyama.retry_ms", "50"))) {
            // Two event loops, one preferring each master: connections on both must end up on the live one.
            for (int c = 0; c < 4; c++) {
                try (OkuyamaClient client = new OkuyamaClient(gateway.okuyamaPort())) {
                    for (int i = 0; i < 20; i++) {
                        String key = b64("failover:" + c + ":" + i);
                        assertEquals("1,true,OK", client.call("1," + key + ",(B),0," + b64("v" + i)));
                        assertEquals("2,true," + b64("v" + i), client.call("2," + key));
                    }
                }
            }
            // What the gateway wrote is in the cluster, for okuyama's own clients.
            try (OkuyamaClient direct = new OkuyamaClient(cluster.node().okuyamaPort())) {
                assertEquals("2,true," + b64("v19"), direct.call("2," + b64("failover:3:19")));
            }
        }
    }

    @Test
    void aMasterThatNeverAnswersFailsRequestsAfterTheTimeout() throws Exception {
        try (FakeMaster silent = new FakeMaster(0, line -> null);
             TestGateway gateway = TestGateway.start(Map.of("backend", "okuyama",
                     "okuyama.masters", silent.address(), "okuyama.timeout_ms", "300"));
             OkuyamaClient client = new OkuyamaClient(gateway.okuyamaPort())) {
            long start = System.nanoTime();
            String reply = client.call("2," + b64("anything"));
            long millis = (System.nanoTime() - start) / 1_000_000;
            assertEquals("2,error,NG:Temporary failure, try again", reply);
            assertTrue(millis >= 250 && millis < 5000, "answered after " + millis + " ms");
            // The connection stays usable, and the next request fails the same way rather than hanging.
            assertEquals("1,error,NG:Temporary failure, try again",
                    client.call("1," + b64("k") + ",(B),0," + b64("v")));
        }
    }

    @Test
    void aMasterThatComesBackIsUsedAgain() throws Exception {
        try (OkuyamaCluster cluster = OkuyamaCluster.start()) {
            int port = cluster.node().okuyamaPort();
            try (TestGateway gateway = TestGateway.start(Map.of("backend", "okuyama",
                    "okuyama.masters", cluster.address(), "okuyama.failure_limit", "1", "okuyama.retry_ms", "50"));
                 OkuyamaClient client = new OkuyamaClient(gateway.okuyamaPort())) {
                assertEquals("1,true,OK", client.call("1," + b64("back") + ",(B),0," + b64("before")));
                cluster.node().close(); // the only master goes away
                assertTrue(client.call("2," + b64("back")).startsWith("2,error,"));
                // ... and comes back on the same port, empty, as a restarted in-memory node would.
                try (TestGateway again = TestGateway.start(Map.of("okuyama.port", Integer.toString(port)))) {
                    String reply = "";
                    for (int i = 0; i < 100 && !reply.equals("1,true,OK"); i++) {
                        Thread.sleep(20);
                        reply = client.call("1," + b64("back") + ",(B),0," + b64("after"));
                    }
                    assertEquals("1,true,OK", reply);
                    assertEquals("2,true," + b64("after"), client.call("2," + b64("back")));
                }
            }
        }
    }

    /**
     * A DataNode that cannot be reached is read through its replica, listed after it with {@code |}: the export the
     * gateway gives (its exhaustive scan) still holds every item.
     */
    @Test
    void aDataNodeThatIsDownIsListedThroughItsReplica() throws Exception {
        try (OkuyamaCluster cluster = OkuyamaCluster.start();
             TestGateway gateway = TestGateway.start(Map.of("backend", "okuyama",
                     "okuyama.masters", cluster.address(),
                     "okuyama.datanodes", "127.0.0.1:" + deadPort() + "|" + cluster.address()));
             OkuyamaClient direct = new OkuyamaClient(cluster.node().okuyamaPort());
             OkuyamaClient client = new OkuyamaClient(gateway.okuyamaPort())) {
            for (int i = 0; i < 5; i++) {
                assertEquals("1,true,OK", direct.call("1," + b64("listed" + i) + ",(B),0," + b64("v" + i)));
            }
            List<String> export = client.callUntil("101\n1,0", "-1");
            assertEquals(6, export.size(), export.toString());
            for (int i = 0; i < 5; i++) {
                String item = "+," + b64("listed" + i) + "," + b64("v" + i) + "!";
                assertTrue(export.stream().anyMatch(line -> line.startsWith(item)), item + " in " + export);
            }
        }
    }

    /**
     * A MasterNode writes with Nagle's algorithm on: a second reply on a connection waits for the first to be
     * acknowledged, some 40 ms later. So each connection carries one request at a time (a set's version read waits
     * for the set's reply), and requests beyond the connections queue: a master that finds a second line already
     * there while it answers the first is never seen.
     */
    @Test
    void eachConnectionCarriesOneRequestAtATime() throws Exception {
        try (FakeMaster master = new FakeMaster(5, line -> line.startsWith("1,") ? "1,true,OK"
                : line.startsWith("15,") ? "15,true," + b64("v") + ",7" : "-1,error,unknown");
             TestGateway gateway = TestGateway.start(Map.of("backend", "okuyama",
                     "okuyama.masters", master.address(), "okuyama.connections", "1"))) {
            List<Thread> clients = new ArrayList<>();
            List<String> replies = new CopyOnWriteArrayList<>();
            for (int c = 0; c < 4; c++) {
                Thread client = new Thread(() -> {
                    try (OkuyamaClient okuyama = new OkuyamaClient(gateway.okuyamaPort())) {
                        for (int i = 0; i < 5; i++) {
                            replies.add(okuyama.call("1," + b64("k") + ",(B),0," + b64("v")));
                        }
                    } catch (Exception e) {
                        replies.add(e.toString());
                    }
                });
                clients.add(client);
                client.start();
            }
            for (Thread client : clients) {
                client.join(10_000);
            }
            assertEquals(Collections.nCopies(20, "1,true,OK"), replies);
            assertTrue(master.lines.size() >= 40, "a set and its version read each: " + master.lines.size());
            assertEquals(0, master.pipelined.get(), "lines sent before the one before them was answered");
        }
    }

    /**
     * okuyama gives an add with an expiry version 0. A client reads it as 0 through the gateway, as from okuyama,
     * and a version-checked store naming 0 reaches the cluster as 0.
     */
    @Test
    void versionZeroIsZeroBothWays() throws Exception {
        try (FakeMaster master = new FakeMaster(0, line -> line.startsWith("15,") ? "15,true," + b64("v") + ",0"
                : line.startsWith("16,") ? "16,true,OK" : "-1,error,unknown");
             TestGateway gateway = TestGateway.start(Map.of("backend", "okuyama",
                     "okuyama.masters", master.address()));
             OkuyamaClient client = new OkuyamaClient(gateway.okuyamaPort())) {
            assertEquals("15,true," + b64("v") + ",0", client.call("15," + b64("k")));
            assertEquals("16,true,OK", client.call("16," + b64("k") + ",(B),0," + b64("w") + ",0"));
            assertTrue(master.lines.contains("16," + b64("k") + ",(B),0," + b64("w") + ",0"), master.lines.toString());
        }
    }
}
