package kvgate.okuyama;

import static kvgate.testing.OkuyamaClient.b64;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import kvgate.testing.OkuyamaClient;
import kvgate.testing.TestGateway;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A tag's keys and an n-gram's postings are one item each, so {@code max_item_size} bounds them: what a store
 * answers, and what it leaves stored, when its tag or index entry no longer fits.
 */
class OkuyamaTagLimitTest {
    private static TestGateway gateway;

    @BeforeAll
    static void start() throws Exception {
        gateway = TestGateway.start(Map.of("max_item_size", "1k"));
    }

    @AfterAll
    static void stop() {
        gateway.close();
    }

    /** Tags fresh keys with {@code tag} until its list is full; answers how many it took. */
    private static int fill(OkuyamaClient client, String tag, String prefix) throws Exception {
        for (int i = 0; i < 1000; i++) {
            String reply = client.call("1," + b64(prefix + i) + "," + tag + ",0," + b64("v"));
            if (!reply.equals("1,true,OK")) {
                return i;
            }
        }
        throw new AssertionError("a 1k item never filled");
    }

    @Test
    void aSetWhoseTagIsFullIsRefusedAndNotStored() throws Exception {
        try (OkuyamaClient client = new OkuyamaClient(gateway.okuyamaPort())) {
            String tag = b64("full-set");
            int listed = fill(client, tag, "set-");
            assertTrue(listed > 10, "listed " + listed);
            String key = b64("set-" + listed);
            assertEquals("1,error,NG:the tag's key list is full (max_item_size); the value is not stored",
                    client.call("1," + key + "," + tag + ",0," + b64("new")));
            assertEquals("2,false,", client.call("2," + key));
            assertFalse(client.call("3," + tag + ",true").contains(key), "not listed either");
            // A key the tag already lists is stored again: the tag already says it.
            assertEquals("1,true,OK", client.call("1," + b64("set-0") + "," + tag + ",0," + b64("again")));
            assertEquals("2,true," + b64("again"), client.call("2," + b64("set-0")));
            assertEquals("1,true,OK", client.call("1," + key + ",(B),0," + b64("untagged")), "untagged is fine");
        }
    }

    @Test
    void setNewValueAndVersionCheckSayTheValueIsStoredUntagged() throws Exception {
        try (OkuyamaClient client = new OkuyamaClient(gateway.okuyamaPort())) {
            String tag = b64("full-add");
            int listed = fill(client, tag, "add-");
            // An add or a CAS store must win the key before it may tag it, as in the reference: the value is
            // stored, and the reply says it is not tagged.
            String added = b64("add-" + listed);
            assertEquals("6,error,NG:the tag's key list is full (max_item_size); the value is stored untagged",
                    client.call("6," + added + "," + tag + ",0," + b64("new")));
            assertEquals("2,true," + b64("new"), client.call("2," + added));
            String version = client.call("15," + added).split(",")[3];
            assertEquals("16,error,NG:the tag's key list is full (max_item_size); the value is stored untagged",
                    client.call("16," + added + "," + tag + ",0," + b64("newer") + "," + version));
            assertEquals("2,true," + b64("newer"), client.call("2," + added));
        }
    }

    @Test
    void anIndexedSetWhoseTagOrNGramIsFullIsRefusedAndNotStored() throws Exception {
        try (OkuyamaClient client = new OkuyamaClient(gateway.okuyamaPort())) {
            String tag = b64("full-index");
            int listed = fill(client, tag, "idx-");
            String key = b64("idx-" + listed);
            assertEquals("42,error,NG:the tag's key list is full (max_item_size); the value is not stored",
                    client.call("42," + key + "," + tag + ",0," + b64("words") + ",(B),3,1"));
            assertEquals("2,false,", client.call("2," + key));
            String group = b64("full-grams");
            String reply = "";
            int i = 0;
            for (; i < 1000; i++) {
                reply = client.call("42," + b64("gram-" + i) + ",(B),0," + b64("same words") + "," + group + ",3,1");
                if (!reply.equals("42,true,OK")) {
                    break;
                }
            }
            assertEquals("42,error,NG:an n-gram's key list is full (max_item_size); the value is not stored", reply);
            assertEquals("2,false,", client.call("2," + b64("gram-" + i)));
        }
    }
}
