package kvgate.memcached;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.EOFException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import kvgate.testing.BinaryClient;
import kvgate.testing.ClientConnection;
import kvgate.testing.TestGateway;
import kvgate.testing.TextClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The text protocol beside the binary one on the memcached listeners: chosen by the first byte, on TCP and the Unix
 * socket, turned off by {@code memcached.text}, and authenticated as memcached 1.6 authenticates text clients.
 */
class TextProtocolTest {

    @Test
    void theFirstByteChoosesTheProtocolOnTcpAndTheUnixSocket(@TempDir Path dir) throws Exception {
        Path socket = dir.resolve("memcached.sock");
        try (TestGateway gateway = TestGateway.start(Map.of("memcached.socket", socket.toString()));
             TextClient text = new TextClient(gateway.port());
             TextClient local = new TextClient(socket);
             BinaryClient binary = new BinaryClient(gateway.port())) {
            assertEquals("STORED\r\n", text.store("set", "chosen", 0, 0, "by the first byte"));
            assertEquals("by the first byte", binary.get("chosen").valueText());
            assertEquals("by the first byte", local.get("chosen"));
            binary.assertUsable();
            assertEquals("STORED\r\n", local.store("set", "chosen", 0, 0, "over the socket"));
            assertEquals("over the socket", binary.get("chosen").valueText());
        }
    }

    @Test
    void withTextOffATextLineGetsABinaryError() throws Exception {
        try (TestGateway gateway = TestGateway.start(Map.of("memcached.text", "false"));
             ClientConnection client = ClientConnection.tcp(gateway.port(), 5000)) {
            // At least a binary header's 24 bytes, which the binary decoder reads as one.
            client.out().write("set foo 0 0 3\r\nbar\r\nget foo\r\n".getBytes(StandardCharsets.US_ASCII));
            byte[] header = client.in().readNBytes(24);
            assertEquals((byte) 0x81, header[0], "a binary response");
            assertTrue(header[7] != 0, "with an error status");
        }
    }

    @Test
    void aTextClientAuthenticatesWithASetOfUserAndPassword(@TempDir Path dir) throws Exception {
        Map<String, String> settings = new HashMap<>(TestGateway.passwordFile(dir, "app:secret\n"));
        try (TestGateway gateway = TestGateway.start(settings)) {
            try (TextClient client = new TextClient(gateway.port())) {
                assertEquals("CLIENT_ERROR unauthenticated\r\n", client.call("get k\r\n"));
                assertEquals("CLIENT_ERROR unauthenticated\r\n", client.call("version\r\n"));
                assertEquals("CLIENT_ERROR authentication failure\r\n", client.store("set", "any", 0, 0,
                        "app wrong"));
                assertEquals("CLIENT_ERROR bad authentication token format\r\n", client.store("set", "any", 0, 0,
                        "app"));
                assertEquals("STORED\r\n", client.store("set", "any", 0, 0, "app secret"));
                assertEquals("STORED\r\n", client.store("set", "k", 0, 0, "v"), "served once authenticated");
                assertEquals("v", client.get("k"));
                String stats = client.call("stats\r\n");
                // As memcached counts: a token it cannot read is no attempt.
                assertTrue(stats.contains("STAT auth_cmds 2\r\n") && stats.contains("STAT auth_errors 1\r\n"),
                        stats);
            }
            try (TextClient guesser = new TextClient(gateway.port())) {
                for (int i = 0; i < 3; i++) {
                    assertEquals("CLIENT_ERROR authentication failure\r\n", guesser.store("set", "x", 0, 0,
                            "app guess" + i));
                }
                assertThrows(EOFException.class, guesser::read, "closed after the third failure in a row");
            }
        }
    }

    @Test
    void aClientThatEndsItsInputGetsEveryReplyThenTheClose() throws Exception {
        try (TestGateway gateway = TestGateway.start();
             ClientConnection client = ClientConnection.tcp(gateway.port(), 5000)) {
            StringBuilder requests = new StringBuilder();
            for (int i = 0; i < 200; i++) {
                requests.append("set k").append(i).append(" 0 0 1\r\nx\r\nget k").append(i).append(" k")
                        .append(i + 1000).append("\r\n");
            }
            client.out().write(requests.toString().getBytes(StandardCharsets.US_ASCII));
            client.socket().shutdownOutput();
            byte[] replies = client.in().readAllBytes();
            assertEquals(400, TextClient.replies(replies).size());
        }
    }

    @Test
    void quitClosesAfterTheRepliesBeforeIt() throws Exception {
        try (TestGateway gateway = TestGateway.start();
             ClientConnection client = ClientConnection.tcp(gateway.port(), 5000)) {
            client.out().write("set q 0 0 1\r\nx\r\nget q\r\nquit\r\nget q\r\n".getBytes(StandardCharsets.US_ASCII));
            assertArrayEquals("STORED\r\nVALUE q 0 1\r\nx\r\nEND\r\n".getBytes(StandardCharsets.US_ASCII),
                    client.in().readAllBytes());
        }
    }
}
