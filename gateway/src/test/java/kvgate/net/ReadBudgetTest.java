package kvgate.net;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import kvgate.testing.BinaryClient;
import kvgate.testing.ClientConnection;
import kvgate.testing.TestGateway;
import kvgate.testing.TextClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code read_budget} over real sockets: connections of every protocol holding most of a large value and waiting
 * are shed, the longest-waiting first, each with its protocol's out-of-memory answer, until what partial requests
 * hold is under the budget; the connection still sending is not shed and completes its request; other clients are
 * served throughout.
 */
class ReadBudgetTest {
    private static final long BUDGET = 4L << 20;
    private static final int VALUE = 1_000_000;
    private static final int SENT = 900_000;

    private TestGateway gateway;

    @BeforeEach
    void start() throws Exception {
        gateway = TestGateway.start(Map.of("read_budget", Long.toString(BUDGET), "max_item_size", "1m",
                "okuyama.max_line", "2m"));
    }

    @AfterEach
    void stop() {
        gateway.close();
    }

    private long held() {
        return Long.parseLong(gateway.gateway().metrics().meters().get("kvgate.read_budget.held"));
    }

    /** A client of some protocol that begins a large store and stops part way. */
    private record Holder(String protocol, ClientConnection connection, byte[] rest, byte[] shedAnswer) {
    }

    private Holder binary(int i) throws IOException {
        byte[] frame = BinaryClient.frame(BinaryClient.SET, BinaryClient.storeExtras(0, 0), BinaryClient.bytes("b" + i),
                new byte[VALUE], 0, 0x1000 + i);
        ClientConnection c = ClientConnection.tcp(gateway.port(), 5000);
        int head = frame.length - VALUE;
        c.out().write(frame, 0, head + SENT);
        c.out().flush();
        // memcached's ENOMEM (0x82) with its message, the request's opcode and opaque.
        byte[] message = "Out of memory".getBytes(StandardCharsets.US_ASCII);
        byte[] answer = new byte[24 + message.length];
        answer[0] = (byte) 0x81;
        answer[1] = (byte) BinaryClient.SET;
        answer[7] = (byte) 0x82;
        answer[11] = (byte) message.length;
        answer[14] = 0x10;
        answer[15] = (byte) i;
        System.arraycopy(message, 0, answer, 24, message.length);
        return new Holder("binary", c, Arrays.copyOfRange(frame, head + SENT, frame.length), answer);
    }

    private Holder text(int i) throws IOException {
        ClientConnection c = ClientConnection.tcp(gateway.port(), 5000);
        c.out().write(("set t" + i + " 0 0 " + VALUE + "\r\n").getBytes(StandardCharsets.US_ASCII));
        c.out().write(new byte[SENT]);
        c.out().flush();
        byte[] rest = new byte[VALUE - SENT + 2];
        rest[rest.length - 2] = '\r';
        rest[rest.length - 1] = '\n';
        return new Holder("text", c, rest, "SERVER_ERROR out of memory storing object\r\n"
                .getBytes(StandardCharsets.US_ASCII));
    }

    private Holder okuyama(int i) throws IOException {
        ClientConnection c = ClientConnection.tcp(gateway.okuyamaPort(), 5000);
        String value = Base64.getEncoder().encodeToString(new byte[SENT]);
        String head = "1," + Base64.getEncoder().encodeToString(("o" + i).getBytes(StandardCharsets.US_ASCII))
                + ",(B),0,";
        c.out().write((head + value).getBytes(StandardCharsets.US_ASCII));
        c.out().flush();
        return new Holder("okuyama", c, "\n".getBytes(StandardCharsets.US_ASCII),
                "1,error,Server is out of memory for requests; retry later\n".getBytes(StandardCharsets.US_ASCII));
    }

    /** What the server sent before closing, or null if it still had not closed after {@code millis}. */
    private static byte[] untilClosed(ClientConnection c, int millis) throws IOException {
        c.socket().setSoTimeout(millis);
        ByteArrayOutputStream got = new ByteArrayOutputStream();
        InputStream in = c.in();
        byte[] buffer = new byte[4096];
        try {
            for (int n; (n = in.read(buffer)) >= 0; ) {
                got.write(buffer, 0, n);
            }
        } catch (SocketTimeoutException stillOpen) {
            return null;
        } catch (IOException reset) {
            // closed with unread bytes of ours: what came before the reset is what was answered
        }
        return got.toByteArray();
    }

    @Test
    void holdersOfEveryProtocolAreShedLongestWaitingFirstAndTheLastOneCompletes() throws Exception {
        List<Holder> holders = new ArrayList<>();
        try (TextClient other = new TextClient(gateway.port())) {
            for (int i = 0; i < 9; i++) {
                holders.add(switch (i % 3) {
                    case 0 -> binary(i);
                    case 1 -> text(i);
                    default -> okuyama(i);
                });
                Thread.sleep(150); // each waits longer than the one after it
                assertEquals("STORED\r\n", other.store("set", "other" + i, 0, 0, "served"));
                assertTrue(held() <= BUDGET, "held " + held() + " over the budget");
            }
            Holder last = holders.get(holders.size() - 1);
            int shed = 0;
            for (Holder holder : holders.subList(0, holders.size() - 1)) {
                byte[] answer = untilClosed(holder.connection(), shed == 0 ? 2000 : 300);
                if (answer != null) {
                    assertArrayEquals(holder.shedAnswer(), answer, holder.protocol() + ": "
                            + new String(answer, StandardCharsets.ISO_8859_1));
                    shed++;
                }
            }
            // At most the budget's worth (about a mebibyte each) stays; the longest-waiting went first.
            assertTrue(shed >= holders.size() - 4, "only " + shed + " shed");
            assertTrue(untilClosed(holders.get(0).connection(), 10) != null, "the longest-waiting was kept");
            assertEquals(shed, gateway.gateway().metrics().refusals("memcached", "read_budget").count()
                    + gateway.gateway().metrics().refusals("okuyama", "read_budget").count());
            // The one still sending completes its store.
            last.connection().out().write(last.rest());
            last.connection().out().flush();
            last.connection().socket().setSoTimeout(5000);
            byte[] reply = new byte[7];
            int n = last.connection().in().readNBytes(reply, 0, reply.length);
            assertEquals("1,true,", new String(reply, 0, n, StandardCharsets.ISO_8859_1));
            assertEquals("STORED\r\n", other.store("set", "after", 0, 0, "served"));
        } finally {
            for (Holder holder : holders) {
                holder.connection().close();
            }
        }
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (held() > 0 && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertEquals(0, held(), "held after every holder closed");
    }

    @Test
    void requestsArrivingWholeCostTheBudgetNothing() throws Exception {
        try (BinaryClient client = new BinaryClient(gateway.port())) {
            for (int i = 0; i < 50; i++) {
                assertEquals(0, client.set("k" + i, "x".repeat(50_000), 0, 0).status());
            }
        }
        assertEquals(0, held());
        assertEquals(0, gateway.gateway().metrics().refusals("memcached", "read_budget").count());
    }
}
