package kvgate.net;

import static kvgate.testing.BinaryClient.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.Socket;
import java.util.Map;
import kvgate.testing.BinaryClient;
import kvgate.testing.ClientConnection;
import kvgate.testing.CounterClient;
import kvgate.testing.TestGateway;
import org.junit.jupiter.api.Test;

/** Connection count, idle time and per-connection backlog are bounded by configuration. */
class ConnectionLimitsTest {

    @Test
    void connectionsBeyondMaxConnectionsAreClosedAtOnce() throws Exception {
        try (TestGateway gateway = TestGateway.start(Map.of("max_connections", "2"));
             BinaryClient first = new BinaryClient(gateway.port());
             BinaryClient second = new BinaryClient(gateway.port())) {
            assertEquals(0, first.call(NOOP, NONE, NONE, NONE, 0).status());
            assertEquals(0, second.call(NOOP, NONE, NONE, NONE, 0).status());
            try (BinaryClient third = new BinaryClient(gateway.port())) {
                assertTrue(third.closedByServer());
            }
            second.close();
            Thread.sleep(200); // the gateway counts the close
            try (BinaryClient fourth = new BinaryClient(gateway.port())) {
                assertEquals(0, fourth.call(NOOP, NONE, NONE, NONE, 0).status(), "a freed place can be taken");
            }
        }
    }

    @Test
    void idleConnectionsAreClosedAfterTheIdleTimeout() throws Exception {
        try (TestGateway gateway = TestGateway.start(Map.of("idle_timeout_s", "1"));
             BinaryClient busy = new BinaryClient(gateway.port());
             BinaryClient idle = new BinaryClient(gateway.port())) {
            long start = System.currentTimeMillis();
            for (int i = 0; i < 8; i++) {
                Thread.sleep(250);
                assertEquals(0, busy.call(NOOP, NONE, NONE, NONE, 0).status());
            }
            assertTrue(idle.closedByServer());
            assertTrue(System.currentTimeMillis() - start >= 1000);
            assertEquals(0, busy.call(NOOP, NONE, NONE, NONE, 0).status(), "an active connection stays open");
        }
    }

    @Test
    void aTrickleOfBytesThatNeverCompletesARequestDoesNotKeepAConnectionFromIdling() throws Exception {
        // The request deadline is far off: only the idle timeout can cut these.
        try (TestGateway gateway = TestGateway.start(Map.of("idle_timeout_s", "1", "request_timeout_s", "60"));
             ClientConnection text = ClientConnection.tcp(gateway.port(), 200);
             ClientConnection okuyama = ClientConnection.tcp(gateway.okuyamaPort(), 200);
             BinaryClient busy = new BinaryClient(gateway.port())) {
            text.out().write('g'); // the first byte picks the text protocol
            long start = System.nanoTime();
            boolean textOpen = true;
            boolean okuyamaOpen = true;
            while ((textOpen || okuyamaOpen) && System.nanoTime() - start < 5_000_000_000L) {
                textOpen = textOpen && drip(text, 'e');
                okuyamaOpen = okuyamaOpen && drip(okuyama, '1');
                assertEquals(0, busy.call(NOOP, NONE, NONE, NONE, 0).status());
            }
            long millis = (System.nanoTime() - start) / 1_000_000;
            assertFalse(textOpen || okuyamaOpen, "a trickling connection still open after " + millis + " ms");
            assertTrue(millis >= 800 && millis < 3000, "closed after " + millis + " ms");
            assertEquals(0, busy.call(NOOP, NONE, NONE, NONE, 0).status(), "the busy connection is still served");
        }
    }

    /** Sends one byte and waits for the server a moment: false when it has closed the connection. */
    private static boolean drip(ClientConnection connection, char b) {
        try {
            connection.out().write(b);
            connection.out().flush();
            return connection.in().read() >= 0; // no reply is due: anything but a timeout is the end
        } catch (java.net.SocketTimeoutException stillOpen) {
            return true;
        } catch (java.io.IOException closed) {
            return false;
        }
    }

    @Test
    void counterConnectionsAreNeverClosedForBeingIdleSoTheirHoldingsLastAsLongAsThey() throws Exception {
        try (TestGateway gateway = TestGateway.start(Map.of("idle_timeout_s", "1"));
             CounterClient holder = new CounterClient(gateway.counterPort());
             CounterClient other = new CounterClient(gateway.counterPort())) {
            assertEquals(0, holder.acquire("quiet-lock", 1, 1).status());
            Thread.sleep(2_200);
            assertEquals(0x21, other.acquire("quiet-lock", 1, 1).status(), "still held by the quiet connection");
            assertEquals(1, holder.get("quiet-lock").u32(0), "whose connection is still open");
        }
    }

    @Test
    void aClientThatSendsWithoutReadingIsThrottledNotBufferedAndLosesNothing() throws Exception {
        try (TestGateway gateway = TestGateway.start(Map.of("max_inflight", "8"));
             Socket socket = new Socket("127.0.0.1", gateway.port())) {
            socket.setSoTimeout(10_000);
            byte[] value = new byte[1000];
            int requests = 20_000;
            // Writes 10 MB of sets, each followed by a get of its key (a 1 KB reply), from another thread while this
            // one reads nothing at first: the gateway must stop reading instead of queueing 10 MB of replies, then
            // serve everything once the client reads.
            Thread writer = new Thread(() -> {
                try {
                    var out = socket.getOutputStream();
                    for (int i = 0; i < requests; i += 2) {
                        out.write(frame(SET, storeExtras(0, 0), bytes("bp-" + (i % 100)), value, 0, i));
                        out.write(frame(GET, new byte[0], bytes("bp-" + (i % 100)), new byte[0], 0, i + 1));
                    }
                    out.flush();
                } catch (Exception e) {
                    throw new RuntimeException(e);
                }
            });
            writer.start();
            Thread.sleep(1000);
            assertTrue(writer.isAlive(), "the gateway should have stopped reading, blocking the writer");
            var in = new java.io.DataInputStream(socket.getInputStream());
            byte[] header = new byte[24];
            for (int i = 0; i < requests; i++) {
                in.readFully(header);
                var fields = java.nio.ByteBuffer.wrap(header);
                assertEquals(i, fields.getInt(12));
                assertEquals(0, fields.getShort(6), "status of reply " + i);
                assertEquals(i % 2 == 0 ? 0 : 4 + value.length, fields.getInt(8), "body length of reply " + i);
                in.readFully(new byte[fields.getInt(8)]);
            }
            writer.join(10_000);
            assertFalse(writer.isAlive());
        }
    }
}
