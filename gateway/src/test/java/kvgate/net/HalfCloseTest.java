package kvgate.net;

import static kvgate.testing.BinaryClient.NONE;
import static kvgate.testing.BinaryClient.bytes;
import static kvgate.testing.BinaryClient.frame;
import static kvgate.testing.BinaryClient.storeExtras;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import kvgate.testing.BinaryClient;
import kvgate.testing.BinaryClient.Response;
import kvgate.testing.OkuyamaClient;
import kvgate.testing.TestGateway;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A client that shuts its output down after its last request (as {@code nc} does at the end of its input) still gets
 * every reply, then the connection closes. On the store file, whose writes are answered only once committed, and with
 * requests the gateway works on before it answers (a manifest, tagged stores), the replies are still being worked
 * on when the end of the input arrives.
 */
class HalfCloseTest {
    @TempDir
    static Path data;
    private static TestGateway gateway;

    @BeforeAll
    static void start() throws Exception {
        gateway = TestGateway.start(Map.of("local.path", data.toString(), "okuyama.enable", "true"));
    }

    @AfterAll
    static void stop() {
        gateway.close();
    }

    @Test
    void memcachedRepliesAllComeBeforeTheClose() throws Exception {
        try (BinaryClient client = new BinaryClient(gateway.port())) {
            List<byte[]> frames = new ArrayList<>();
            int opaque = 1;
            for (int i = 0; i < 50; i++) {
                frames.add(frame(BinaryClient.SET, storeExtras(0, 0), bytes("hc" + i), bytes("v" + i), 0, opaque++));
            }
            // A manifest is worked on before it is answered, and the requests after it wait for it.
            String manifest = "{\"uid\":\"1\",\"scopes\":[{\"name\":\"_default\",\"uid\":\"0\","
                    + "\"collections\":[{\"name\":\"_default\",\"uid\":\"0\"}]}]}";
            frames.add(frame(BinaryClient.SET_COLLECTIONS_MANIFEST, NONE, NONE, bytes(manifest), 0, opaque++));
            frames.add(frame(BinaryClient.GET, NONE, bytes("hc49"), NONE, 0, opaque++));
            client.send(frames.toArray(new byte[0][]));
            client.socket().shutdownOutput();
            for (int i = 1; i < opaque; i++) {
                Response reply = client.read();
                assertEquals(i, reply.opaque());
                assertEquals(0, reply.status(), "reply " + i);
            }
            assertTrue(client.closedByServer(), "closed once every reply is written");
        }
        try (BinaryClient check = new BinaryClient(gateway.port())) {
            assertEquals("v0", check.get("hc0").valueText());
        }
    }

    @Test
    void okuyamaRepliesAllComeBeforeTheClose() throws Exception {
        try (OkuyamaClient client = new OkuyamaClient(gateway.okuyamaPort())) {
            StringBuilder lines = new StringBuilder();
            for (int i = 0; i < 20; i++) {
                lines.append("1,").append(OkuyamaClient.b64("ok" + i)).append(',').append(OkuyamaClient.b64("tag"))
                        .append(",0,").append(OkuyamaClient.b64("value" + i)).append('\n');
            }
            lines.append("2,").append(OkuyamaClient.b64("ok19")).append('\n');
            client.send(lines.toString());
            client.socket().shutdownOutput();
            for (int i = 0; i < 20; i++) {
                assertEquals("1,true,OK", client.read(), "store " + i);
            }
            assertEquals("2,true," + OkuyamaClient.b64("value19"), client.read());
            assertNull(client.readOrEnd(), "closed once every reply is written");
        }
    }

    @Test
    void aClientThatEndsWithNothingPendingIsClosedAtOnce() throws Exception {
        try (BinaryClient client = new BinaryClient(gateway.port())) {
            assertEquals(0, client.set("idle", "v", 0, 0).status());
            client.socket().shutdownOutput();
            assertTrue(client.closedByServer());
        }
    }
}
