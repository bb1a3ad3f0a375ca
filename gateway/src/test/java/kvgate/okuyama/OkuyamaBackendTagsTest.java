package kvgate.okuyama;

import static kvgate.testing.OkuyamaClient.b64;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Map;
import kvgate.testing.OkuyamaClient;
import kvgate.testing.OkuyamaCluster;
import kvgate.testing.TestGateway;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Tags and the search index on the okuyama backend: those okuyama's own clients gave, kept by the cluster, are listed,
 * searched and removed through the gateway beside those given through it, which the gateway keeps in records of its
 * own.
 */
class OkuyamaBackendTagsTest {
    private OkuyamaCluster cluster;
    private TestGateway gateway;
    /** A client of the cluster itself, as okuyama's clients were before the gateway. */
    private OkuyamaClient direct;
    /** A client of the gateway in front of the cluster. */
    private OkuyamaClient client;

    @BeforeEach
    void start() throws Exception {
        cluster = OkuyamaCluster.start();
        gateway = TestGateway.start(Map.of("backend", "okuyama", "okuyama.masters", cluster.address()));
        direct = new OkuyamaClient(cluster.node().okuyamaPort());
        client = new OkuyamaClient(gateway.okuyamaPort());
    }

    @AfterEach
    void stop() throws Exception {
        client.close();
        direct.close();
        gateway.close();
        cluster.close();
    }

    @Test
    void theClustersOwnTagsAreListedAndRemovedThroughTheGateway() throws Exception {
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

    @Test
    void theClustersOwnIndexIsSearchedThroughTheGateway() throws Exception {
        // Indexed by okuyama's own client, before the gateway came.
        assertEquals("42,true,OK", direct.call("42," + b64("old") + ",(B),0," + b64("hello old world")));
        assertEquals("43,true," + b64("old"), client.call("43," + b64("hello") + ",1,(B),3"));

        assertEquals("42,true,OK", client.call("42," + b64("new") + ",(B),0," + b64("hello new world")));
        assertEquals("43,true," + b64("new") + ":" + b64("old"), client.call("43," + b64("hello") + ",1,(B),3"),
                "the gateway's index first, then the cluster's");
        assertEquals("43,true," + b64("old"), client.call("43," + b64("old") + ":" + b64("hello") + ",1,(B),3"));

        // A value changed since it was indexed is not found by words it no longer holds.
        assertEquals("1,true,OK", direct.call("1," + b64("old") + ",(B),0," + b64("goodbye")));
        assertEquals("43,true," + b64("new"), client.call("43," + b64("hello") + ",1,(B),3"));

        assertEquals("1,true,OK", direct.call("1," + b64("old") + ",(B),0," + b64("hello again")));
        assertEquals("44,true,", client.call("44," + b64("old") + ",0,(B),3"));
        assertEquals("43,false,", direct.call("43," + b64("again") + ",1,(B),3"), "off the cluster's index too");
        assertEquals("43,true," + b64("new"), client.call("43," + b64("hello") + ",1,(B),3"));
    }

    @Test
    void hitsBeyondOneWaveOfReadsAreAllFound() throws Exception {
        // More hits than the backend reads at once: each is read and kept, in the cluster's order.
        for (int i = 0; i < 300; i++) {
            assertEquals("42,true,OK", direct.call("42," + b64("wave" + i) + ",(B),0," + b64("many hits " + i)));
        }
        assertEquals("1,true,OK", direct.call("1," + b64("wave7") + ",(B),0," + b64("changed")));
        String listed = direct.call("43," + b64("many") + ",1,(B),3");
        assertEquals(299, listed.substring("43,true,".length()).split(":").length);
        assertEquals(listed, client.call("43," + b64("many") + ",1,(B),3"),
                "every hit but the changed one, in the cluster's order");
    }
}
