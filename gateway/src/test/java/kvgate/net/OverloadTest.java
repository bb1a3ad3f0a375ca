package kvgate.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.util.internal.PlatformDependent;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import kvgate.testing.BinaryClient;
import kvgate.testing.ClientConnection;
import kvgate.testing.RedisServers;
import kvgate.testing.TestGateway;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The gateway under attack, as a hostile or broken client would attack it: many connections holding most of a large
 * value, slow senders, a flood of connections, a backend that stops answering. Throughout each, a separate
 * well-behaved client (the canary) must be served within a bound, what partial requests hold must stay under the
 * budget, and once the attack ends the canary must be served again within a second.
 */
class OverloadTest {
    /** The longest a canary request may take during an attack. */
    private static final long CANARY_BOUND_MILLIS = 1000;

    /** A client setting and reading one key in a loop on its own thread, timing each round trip. */
    private static final class Canary implements AutoCloseable {
        private final BinaryClient client;
        private final AtomicBoolean running = new AtomicBoolean(true);
        private final AtomicLong slowest = new AtomicLong();
        private final AtomicLong rounds = new AtomicLong();
        private final AtomicReference<String> failure = new AtomicReference<>();
        private final Runnable sample;
        private final Thread thread;

        Canary(int port, Runnable sample) throws IOException {
            this.client = new BinaryClient(port, 5000);
            this.sample = sample;
            this.thread = new Thread(this::run, "canary");
            thread.start();
        }

        private void run() {
            try {
                for (int i = 0; running.get(); i++) {
                    long started = System.nanoTime();
                    int set = client.set("canary", "v" + i, 0, 0).status();
                    BinaryClient.Response got = client.get("canary");
                    long millis = (System.nanoTime() - started) / 1_000_000;
                    slowest.accumulateAndGet(millis, Math::max);
                    if (set != 0 || !("v" + i).equals(got.valueText())) {
                        failure.compareAndSet(null, "round " + i + ": set " + set + ", got " + got.valueText());
                    }
                    rounds.incrementAndGet();
                    sample.run();
                    Thread.sleep(10);
                }
            } catch (Exception | AssertionError e) {
                failure.compareAndSet(null, e.toString());
            }
        }

        /** Waits until the canary has been served {@code more} more times, within a second. */
        void servedAgain(int more) throws InterruptedException {
            long target = rounds.get() + more;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(1);
            while (rounds.get() < target && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            assertTrue(rounds.get() >= target, "the canary was not served within a second of the attack's end");
        }

        @Override
        public void close() throws Exception {
            running.set(false);
            thread.join(10_000);
            client.close();
            assertEquals(null, failure.get(), "the canary failed");
            assertTrue(slowest.get() < CANARY_BOUND_MILLIS, "a canary round took " + slowest.get() + " ms");
            assertTrue(rounds.get() > 0);
        }
    }

    private static long held(TestGateway gateway) {
        return Long.parseLong(gateway.gateway().metrics().meters().get("kvgate.read_budget.held"));
    }

    @Test
    void connectionsHoldingPartialValuesAreShedWithinTheBudget() throws Exception {
        long budget = 16L << 20;
        int attackers = 150;
        try (TestGateway gateway = TestGateway.start(Map.of("read_budget", Long.toString(budget),
                "max_item_size", "1m"))) {
            AtomicLong mostHeld = new AtomicLong();
            AtomicLong mostDirect = new AtomicLong();
            Runnable sample = () -> {
                mostHeld.accumulateAndGet(held(gateway), Math::max);
                mostDirect.accumulateAndGet(PlatformDependent.usedDirectMemory(), Math::max);
            };
            long directBefore = PlatformDependent.usedDirectMemory();
            List<Socket> sockets = new ArrayList<>();
            ExecutorService senders = Executors.newFixedThreadPool(16);
            try (Canary canary = new Canary(gateway.port(), sample)) {
                List<Future<Socket>> sent = new ArrayList<>();
                for (int i = 0; i < attackers; i++) {
                    int n = i;
                    sent.add(senders.submit(() -> holdPartialSet(gateway.port(), n)));
                }
                for (Future<Socket> socket : sent) {
                    Socket held = socket.get(60, TimeUnit.SECONDS);
                    if (held != null) {
                        sockets.add(held);
                    }
                }
                // Written is not yet read: the kernel holds megabytes of each connection's bytes.
                long least = attackers - budget / 900_000;
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                while (shed(gateway) < least && System.nanoTime() < deadline) {
                    Thread.sleep(20);
                }
                assertTrue(shed(gateway) >= least, "only " + shed(gateway) + " shed");
                sample.run();
                assertTrue(mostHeld.get() <= budget, "partial requests held " + mostHeld.get() + " bytes");
                for (Socket socket : sockets) {
                    socket.close();
                }
                canary.servedAgain(20);
            } finally {
                senders.shutdownNow();
                for (Socket socket : sockets) {
                    socket.close();
                }
            }
            // What the attack made the gateway hold, over what it held before: the budget and the reads under way.
            long grew = mostDirect.get() - directBefore;
            assertTrue(grew < 2 * budget + (32L << 20), "direct memory grew by " + grew + " bytes");
        }
    }

    private static long shed(TestGateway gateway) {
        return (long) gateway.gateway().metrics().refusals("memcached", "read_budget").count();
    }

    /** Sends a set's header and 900,000 of its 1,000,000 value bytes, and leaves it there; null once shed. */
    private static Socket holdPartialSet(int port, int n) {
        byte[] frame = BinaryClient.frame(BinaryClient.SET, BinaryClient.storeExtras(0, 0),
                BinaryClient.bytes("held-" + n), new byte[1_000_000], 0, n);
        Socket socket = new Socket();
        try {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 5000);
            socket.getOutputStream().write(frame, 0, frame.length - 100_000);
            return socket;
        } catch (IOException shed) {
            try {
                socket.close();
            } catch (IOException ignored) {
                // closed already
            }
            return null;
        }
    }

    @Test
    void slowSendersAreCutOffAndIdleOnesClosed() throws Exception {
        try (TestGateway gateway = TestGateway.start(Map.of("request_timeout_s", "1", "idle_timeout_s", "2"))) {
            List<ClientConnection> slow = new ArrayList<>();
            try (Canary canary = new Canary(gateway.port(), () -> { })) {
                for (int i = 0; i < 100; i++) {
                    slow.add(ClientConnection.tcp(i % 2 == 0 ? gateway.port() : gateway.okuyamaPort(), 100));
                }
                long started = System.nanoTime();
                int open = slow.size();
                while (open > 0 && System.nanoTime() - started < TimeUnit.SECONDS.toNanos(5)) {
                    open = 0;
                    for (ClientConnection connection : slow) {
                        try {
                            connection.out().write('g'); // never a whole line
                            connection.out().flush();
                            open++;
                        } catch (IOException closed) {
                            // cut off
                        }
                    }
                    Thread.sleep(200);
                }
                long millis = (System.nanoTime() - started) / 1_000_000;
                assertEquals(0, open, "trickling connections still open after " + millis + " ms");
                assertTrue(millis < 3500, "cut off only after " + millis + " ms");
                canary.servedAgain(20);
            } finally {
                for (ClientConnection connection : slow) {
                    connection.close();
                }
            }
            assertTrue(gateway.gateway().metrics().refusals("memcached", "request_timeout").count()
                    + gateway.gateway().metrics().refusals("okuyama", "request_timeout").count() >= 100);
        }
    }

    @Test
    void aFloodOfConnectionsOverTheLimitLeavesTheConnectedServed() throws Exception {
        try (TestGateway gateway = TestGateway.start(Map.of("max_connections", "20"))) {
            int flood = 2000;
            List<Socket> sockets = new ArrayList<>();
            try (Canary canary = new Canary(gateway.port(), () -> { })) {
                for (int i = 0; i < flood; i++) { // held open: each one past the limit is refused
                    Socket socket = new Socket();
                    sockets.add(socket);
                    try {
                        socket.connect(new InetSocketAddress("127.0.0.1", gateway.port()), 5000);
                        socket.getOutputStream().write("version\r\n".getBytes(StandardCharsets.US_ASCII));
                    } catch (IOException refused) {
                        // closed by the gateway first
                    }
                }
                canary.servedAgain(20);
            } finally {
                for (Socket socket : sockets) {
                    socket.close();
                }
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (rejected(gateway) < flood - 20 && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertTrue(rejected(gateway) >= flood - 20, "rejected " + rejected(gateway));
        }
    }

    private static long rejected(TestGateway gateway) {
        return Long.parseLong(gateway.gateway().metrics().meters()
                .getOrDefault("kvgate.connections.rejected{protocol=memcached}", "0"));
    }

    @Test
    @Tag("servers")
    void aStoppedRedisCostsItsRequestsNoTimeOnceItsBreakerIsOpen() throws Exception {
        RedisServers redis = RedisServers.standalone();
        try (TestGateway gateway = TestGateway.start(redis, Map.of("redis.timeout_ms", "300",
                "redis.retry_ms", "200"));
             BinaryClient client = new BinaryClient(gateway.port(), 5000)) {
            assertEquals(0, client.set("k", "v", 0, 0).status());
            redis.pause(0);
            try {
                for (int i = 0; i < 3; i++) { // the failure limit, each waiting for its timeout
                    assertEquals(0x86, client.get("k").status());
                }
                long started = System.nanoTime();
                for (int i = 0; i < 200; i++) {
                    assertEquals(0x86, client.get("k").status(), "a temporary failure");
                }
                long micros = (System.nanoTime() - started) / 1000;
                assertTrue(micros < 200 * 1000, "200 requests to a stopped Redis took " + micros + " us");
            } finally {
                redis.resume(0);
            }
            long resumed = System.nanoTime();
            while (client.get("k").status() != 0) {
                assertTrue(System.nanoTime() - resumed < TimeUnit.SECONDS.toNanos(2), "not served again");
                Thread.sleep(10);
            }
            long millis = (System.nanoTime() - resumed) / 1_000_000;
            assertTrue(millis < 200 + 300 + 1000, "served again only after " + millis + " ms");
        }
    }
}
