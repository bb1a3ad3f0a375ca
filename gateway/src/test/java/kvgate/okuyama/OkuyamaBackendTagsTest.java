package kvgate.okuyama;

import static kvgate.testing.OkuyamaClient.b64;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Map;
import kvgate.testing.OkuyamaClient;
import kvgate.testing.OkuyamaCluster;
import kvgate.testing.TestGateway;
import org.junit.jupiter.api.Test;

/**
 * Tags on the okuyama backend: those okuyama's own clients gave, kept by the cluster, are listed and removed through
 * the gateway beside those given through it, which the gateway keeps in records of its own.
 */
class OkuyamaBackendTagsTest {
    @Test
    void theClustersOwnTagsAreListedAndRemovedThroughTheGateway() throws Exception {
        try (OkuyamaCluster cluster = OkuyamaCluster.start();
             TestGateway gateway = TestGateway.start(Map.of("backend", "okuyama",
                     "okuyama.masters", cluster.address()));
             OkuyamaClient direct = new OkuyamaClient(cluster.node().okuyamaPort());
             OkuyamaClient client = new OkuyamaClient(gateway.okuyamaPort())) {
            String tag = b64("colour");
            assertEquals("1,true,OK", direct.call("1," + b64("red") + "," + tag + ",0," + b64("r")));
            assertEquals("4,true," + b64("red"), client.call("3," + tag + ",true"), "okuyama's own link");

            assertEquals("1,true,OK", client.call("1," + b64("blue") + "," + tag + ",0," + b64("b")));
            assertEquals("4,true," + b64("blue") + ":" + b64("red"), client.call("3," + tag + ",true"),
                    "the gateway's records first, then the cluster's");

            assertEquals("40,true,", client.call("40," + tag + "," + b64("red") + ",0"));
            assertEquals("4,false,", direct.call("3," + tag + ",true"), "taken off in the cluster too");
            assertEquals("4,true," + b64("blue"), client.call("3," + tag + ",true"));
            assertEquals("40,false,", client.call("40," + tag + "," + b64("red") + ",0"));
        }
    }
}
