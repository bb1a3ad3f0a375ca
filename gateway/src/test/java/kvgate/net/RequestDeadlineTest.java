package kvgate.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import kvgate.testing.BinaryClient;
import kvgate.testing.ClientConnection;
import kvgate.testing.CounterClient;
import kvgate.testing.TestGateway;
import kvgate.testing.TextClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code request_timeout_s} over real sockets: a request must arrive whole within it on every stream protocol, a
 * trickle of bytes does not reset it, and neither a client that keeps completing requests nor an idle one is cut.
 */
class RequestDeadlineTest {
    private static TestGateway gateway;

    @BeforeAll
    static void start() throws Exception {
        gateway = TestGateway.start(Map.of("request_timeout_s", "1"));
    }

    @AfterAll
    static void stop() {
        gateway.close();
    }

    /** Milliseconds until the server closes {@code client}'s connection, sending {@code drip} every 200 ms meanwhile. */
    private static long millisToClose(ClientConnection client, byte[] drip) throws Exception {
        long started = System.nanoTime();
        client.socket().setSoTimeout(200);
        InputStream in = client.in();
        while (System.nanoTime() - started < 5_000_000_000L) {
            try {
                if (in.read() < 0) {
                    return (System.nanoTime() - started) / 1_000_000;
                }
            } catch (SocketTimeoutException e) {
                if (drip.length > 0) {
                    try {
                        client.out().write(drip);
                    } catch (IOException closed) {
                        return (System.nanoTime() - started) / 1_000_000;
                    }
                }
            } catch (IOException reset) {
                return (System.nanoTime() - started) / 1_000_000;
            }
        }
        return -1;
    }

    @Test
    void aTrickledTextValueIsCutOffWhileOthersAreServed() throws Exception {
        try (ClientConnection slow = ClientConnection.tcp(gateway.port(), 5000);
             TextClient other = new TextClient(gateway.port())) {
            slow.out().write("set slow 0 0 100\r\n".getBytes(StandardCharsets.US_ASCII));
            long closedAfter = millisToClose(slow, new byte[] {'x'});
            assertTrue(closedAfter >= 800 && closedAfter < 3000, "closed after " + closedAfter + " ms");
            assertEquals("STORED\r\n", other.store("set", "other", 0, 0, "fine"));
        }
        assertTrue(gateway.gateway().metrics().refusals("memcached", "request_timeout").count() >= 1);
    }

    @Test
    void aLineSentAByteAtATimeIsCutOffOnEveryLineProtocol() throws Exception {
        for (int port : new int[] {gateway.port(), gateway.okuyamaPort()}) {
            try (ClientConnection slow = ClientConnection.tcp(port, 5000)) {
                slow.out().write('g');
                long closedAfter = millisToClose(slow, new byte[] {'e'});
                assertTrue(closedAfter >= 800 && closedAfter < 3000, port + ": closed after " + closedAfter + " ms");
            }
        }
    }

    @Test
    void aPartialBinaryOrCounterFrameIsCutOff() throws Exception {
        byte[] binary = BinaryClient.frame(BinaryClient.SET, BinaryClient.storeExtras(0, 0), BinaryClient.bytes("k"),
                BinaryClient.bytes("a value that never ends"), 0, 1);
        byte[] counter = CounterClient.frame(CounterClient.ACQUIRE, 1, CounterClient.acquireBody(1, 10, "never-ends"));
        for (byte[] frame : new byte[][] {binary, counter}) {
            int port = frame == binary ? gateway.port() : gateway.counterPort();
            try (ClientConnection slow = ClientConnection.tcp(port, 5000)) {
                slow.out().write(frame, 0, frame.length - 5);
                long closedAfter = millisToClose(slow, new byte[0]);
                assertTrue(closedAfter >= 800 && closedAfter < 3000, port + ": closed after " + closedAfter + " ms");
            }
        }
    }

    @Test
    void aClientThatKeepsCompletingRequestsOrWaitsIdleIsNotCut() throws Exception {
        try (TextClient busy = new TextClient(gateway.port());
             TextClient idle = new TextClient(gateway.port())) {
            long until = System.nanoTime() + 2_500_000_000L;
            int i = 0;
            while (System.nanoTime() < until) {
                // Each request in two writes a little apart: always a partial one, never one older than the deadline.
                busy.send("set busy 0 0 2\r\n");
                Thread.sleep(100);
                busy.send(String.format("%02d\r\n", i++ % 100));
                assertEquals("STORED\r\n", busy.read());
            }
            Thread.sleep(200);
            assertEquals("END\r\n", idle.call("get nothing-here\r\n"), "an idle connection is left alone");
        }
    }
}
