package kvgate.backend.memcached;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.netty.channel.Channel;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.nio.NioIoHandler;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.reflect.Field;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import kvgate.spi.Item;
import kvgate.spi.Namespace;
import kvgate.spi.Operation;
import kvgate.spi.PipelinedConnection;
import kvgate.spi.Result;
import kvgate.spi.ServerHealth;
import kvgate.spi.Status;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * How one {@link ServerConnection} counts failures, ejects its server and probes it, against real loopback sockets
 * that misbehave on purpose: a server that accepts and never answers, one that drops the connection, a port that
 * refuses, and a "blackholed" port whose connection attempts hang.
 */
class ServerConnectionFailureTest {
    /** Longer than any request that fails at once may take, even on a busy machine. */
    private static final long FAST_MILLIS = 150;
    /** Every wait for a reply gives up after this, so a request nobody completes fails the test. */
    private static final long BOUND_MILLIS = 10_000;
    /** A retry interval long enough that no probe runs during a test that does not want one. */
    private static final long NO_RETRY = 600_000;

    private static EventLoopGroup loops;
    private final List<AutoCloseable> toClose = new ArrayList<>();

    @BeforeAll
    static void startLoop() {
        // The same transport as the gateway's: ServerConnection picks the socket type that matches it.
        loops = new MultiThreadIoEventLoopGroup(1, Epoll.isAvailable() ? EpollIoHandler.newFactory()
                : NioIoHandler.newFactory());
    }

    @AfterAll
    static void stopLoop() {
        loops.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    @AfterEach
    void closeEverything() throws Exception {
        for (AutoCloseable closeable : toClose) {
            closeable.close();
        }
    }

    @Test
    void aTimedOutBatchCountsAsOneFailureInARow() throws Exception {
        FakeServer silent = server(FakeServer::neverAnswer);
        ServerConnection connection = connection(silent.port(), 200, 2, NO_RETRY);

        // Three requests time out together: one failure, so a limit of two does not eject yet.
        long millis = millisToFail(connection, noops(3), ReplyLost.class);
        assertTrue(millis >= 150, "failed after " + millis + " ms, before the timeout");
        assertFalse(connection.ejected(), "ejected after one timed-out batch with a failure limit of 2");

        // The second timeout in a row reaches the limit, and the server's requests then fail at once.
        millisToFail(connection, noops(1), ReplyLost.class);
        assertTrue(connection.ejected(), "not ejected after two timeouts in a row");
        long ejectedMillis = millisToFail(connection, noops(1), ServerUnavailable.class);
        assertTrue(ejectedMillis < FAST_MILLIS, "an ejected server's request took " + ejectedMillis + " ms");
        assertEquals(2, silent.accepted(), "connections for two timeouts");
    }

    @Test
    void anAuthenticationWithoutAnswerFailsTheRequestsWaitingForItAsOneFailureInARow() throws Exception {
        FakeServer silent = server(FakeServer::neverAnswer);
        ServerConnection connection = connection(silent.port(), 200, 2, NO_RETRY, new ServerCredentials("u", "p"));

        // The requests wait for the authentication, which gets no answer: they never reached the server.
        long millis = millisToFail(connection, noops(3), ServerUnavailable.class);
        assertTrue(millis >= 150 && millis < 3000, "failed after " + millis + " ms, not at the timeout");
        assertFalse(connection.ejected(), "ejected after one failed authentication with a failure limit of 2");
        millisToFail(connection, noops(1), ServerUnavailable.class);
        assertTrue(connection.ejected(), "not ejected after two failed authentications in a row");
        assertEquals(2, silent.accepted(), "a connection for each attempt");
    }

    @Test
    void aServerRefusingTheCredentialsFailsTheRequestsAtOnceAndIsEjectedThoughItAnswers() throws Exception {
        AtomicInteger served = new AtomicInteger();
        FakeServer refusing = server(socket -> FakeServer.refuseAuthentication(socket, served));
        ServerConnection connection = connection(refusing.port(), 5000, 2, NO_RETRY,
                new ServerCredentials("u", "wrong"));

        long millis = millisToFail(connection, noops(2), ServerUnavailable.class);
        assertTrue(millis < 2500, "a refused authentication's requests took " + millis + " ms to fail");
        assertFalse(connection.ejected(), "ejected after one refusal with a failure limit of 2");
        // The server answered the authentication, but an answer that refuses does not count as the server being
        // well: the second refusal in a row ejects it.
        millisToFail(connection, noops(1), ServerUnavailable.class);
        assertTrue(connection.ejected(), "not ejected after two refusals in a row");
        assertEquals(0, served.get(), "no request went to the server unauthenticated");
    }

    @Test
    void aConnectionLostWithSeveralRequestsPendingCountsAsOneFailureInARow() throws Exception {
        // Drops each connection once the three requests of a batch have arrived.
        FakeServer dropping = server(socket -> {
            socket.getInputStream().readNBytes(3 * 24);
            socket.close();
        });
        ServerConnection connection = connection(dropping.port(), 5000, 2, NO_RETRY);

        long millis = millisToFail(connection, noops(3), ReplyLost.class);
        assertTrue(millis < 2500, "a lost connection's requests took " + millis + " ms to fail, as if timed out");
        assertFalse(connection.ejected(), "ejected after one lost connection with a failure limit of 2");

        millisToFail(connection, noops(3), ReplyLost.class);
        assertTrue(connection.ejected(), "not ejected after two lost connections in a row");
    }

    @Test
    void aConnectionAttemptToABlackholedHostGivesUpAfterTheTimeoutAsOneFailureInARow() throws Exception {
        Blackhole blackhole = blackhole();
        ServerConnection connection = connection(blackhole.port(), 300, 2, NO_RETRY);

        long millis = millisToFail(connection, noops(2), ServerUnavailable.class);
        assertTrue(millis >= 250 && millis < 3000, "the connection attempt gave up after " + millis + " ms");
        assertFalse(connection.ejected(), "ejected after one connection attempt with a failure limit of 2");

        millisToFail(connection, noops(1), ServerUnavailable.class);
        assertTrue(connection.ejected(), "not ejected after two failed connection attempts in a row");
    }

    @Test
    void requestsPendingOnADeadConnectionFailWhenANewConnectionTakesOverBeforeTheOldOnesCloseHandlerRan()
            throws Exception {
        AtomicBoolean answering = new AtomicBoolean();
        AtomicInteger received = new AtomicInteger();
        FakeServer server = server(socket -> FakeServer.answerNoops(socket, answering, received));
        ServerConnection connection = connection(server.port(), 5000, 3, NO_RETRY);

        // A quiet get closed by a noop, both written on the first connection and left unanswered there.
        ServerRequest quietGet = new ServerRequest(ServerRequest.GETQ, null, new byte[] {'k'}, null, 0,
                new ServerRequest.ReplyFuture());
        ServerRequest noop = noop();
        connection.send(List.of(quietGet, noop));
        awaitTrue(() -> received.get() == 2, "both requests at the server");

        // The connection dies without its close handler running (closeForcibly fires no events), as when the
        // handler is still queued: the connection is inactive, its requests still pending.
        Channel first = loops.next().submit(() -> currentChannel(connection)).get();
        first.eventLoop().submit(() -> first.unsafe().closeForcibly()).get();

        // The next request opens a second connection, where the server answers.
        answering.set(true);
        ServerRequest next = noop();
        connection.send(List.of(next));
        assertEquals(ServerReply.SUCCESS, replyOf(next).get(BOUND_MILLIS, TimeUnit.MILLISECONDS).status());
        assertEquals(2, server.accepted());
        // The first connection's requests fail; the quiet get must not read as a miss (as it would if it were
        // still pending in front of the second connection's requests when their replies come).
        assertFails(quietGet, ReplyLost.class);
        assertFails(noop, ReplyLost.class);

        // The first connection's close handler, late, leaves the second connection alone.
        first.eventLoop().submit(() -> first.close()).get().sync();
        ServerRequest after = noop();
        connection.send(List.of(after));
        assertEquals(ServerReply.SUCCESS, replyOf(after).get(BOUND_MILLIS, TimeUnit.MILLISECONDS).status());
        assertEquals(2, server.accepted(), "connections opened");
        assertFalse(connection.ejected());
    }

    @Test
    void anEjectedServerFailsRequestsAtOnceWhileItsProbeIsStillConnecting() throws Exception {
        Blackhole blackhole = blackhole();
        // Probed every 50 ms, and every connection attempt to it hangs until the timeout, 600 ms.
        ServerConnection connection = connection(blackhole.port(), 600, 1, 50);
        millisToFail(connection, noops(1), ServerUnavailable.class);
        assertTrue(connection.ejected(), "not ejected after a connection attempt gave up");

        // Across more than two probes: no request waits for a probe's connection attempt.
        long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(1500);
        int requests = 0;
        while (System.nanoTime() < end) {
            long millis = millisToFail(connection, noops(1), ServerUnavailable.class);
            requests++;
            assertTrue(millis < FAST_MILLIS, "request " + requests + " to an ejected server took " + millis + " ms");
            assertTrue(connection.ejected(), "the ejection ended before a probe got an answer");
            Thread.sleep(5);
        }
        int probes = probesSent(connection);
        assertTrue(probes >= 2 && probes <= 4, probes + " probes over 1.5 s of 600 ms connection attempts");
    }

    @Test
    void anEjectedServerHasOneProbeAtATimeHoweverManyRequestsFail() throws Exception {
        int refusing = refusingPort();
        ServerConnection connection = connection(refusing, 1000, 1, 20);
        millisToFail(connection, noops(1), ServerUnavailable.class);
        assertTrue(connection.ejected());

        // Two clients keep sending to the refusing server; the probes, every 20 ms, must stay one at a time.
        long start = System.nanoTime();
        long end = start + TimeUnit.MILLISECONDS.toNanos(1000);
        List<Thread> clients = new ArrayList<>();
        AtomicInteger requests = new AtomicInteger();
        for (int i = 0; i < 2; i++) {
            Thread client = new Thread(() -> {
                while (System.nanoTime() < end) {
                    ServerRequest noop = noop();
                    connection.send(List.of(noop));
                    replyOf(noop).handle((reply, error) -> null).join();
                    requests.incrementAndGet();
                }
            });
            client.start();
            clients.add(client);
        }
        for (Thread client : clients) {
            client.join();
        }
        long elapsed = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        int probes = probesSent(connection);
        assertTrue(probes <= elapsed / 20 + 2, probes + " probes in " + elapsed + " ms with a retry interval of 20 ms ("
                + requests + " requests)");
        assertTrue(probes >= elapsed / 20 / 4, "only " + probes + " probes in " + elapsed + " ms");
    }

    @Test
    void anEjectedServerIsBackOnceAProbeIsAnsweredAndIsProbedAgainAfterItsNextEjection() throws Exception {
        AtomicBoolean up = new AtomicBoolean();
        FakeServer server = server(socket -> {
            if (up.get()) {
                FakeServer.answerNoops(socket, up, new AtomicInteger());
            } // else closed at once: the connection is lost with the request on it
        });
        ServerConnection connection = connection(server.port(), 5000, 1, 30);

        for (int outage = 1; outage <= 2; outage++) {
            // Lost on a connection the server closes, or refused: which one depends on timing, and this test is
            // about the probes.
            millisToFail(connection, noops(1), Exception.class);
            assertTrue(connection.ejected(), "not ejected, outage " + outage);
            int probesBefore = probesSent(connection);
            Thread.sleep(150);
            assertTrue(connection.ejected(), "the ejection ended without an answer, outage " + outage);
            assertTrue(probesSent(connection) > probesBefore, "no probe during outage " + outage);

            up.set(true);
            awaitTrue(() -> !connection.ejected(), "answered probe, outage " + outage);
            ServerRequest noop = noop();
            connection.send(List.of(noop));
            assertEquals(ServerReply.SUCCESS, replyOf(noop).get(BOUND_MILLIS, TimeUnit.MILLISECONDS).status());

            // The next outage: the server drops its connections and takes new ones only to drop them.
            up.set(false);
            server.dropConnections();
            awaitTrue(() -> {
                try {
                    return loops.next().submit(() -> currentChannel(connection) == null).get();
                } catch (Exception e) {
                    throw new AssertionError(e);
                }
            }, "the dropped connection noticed");
        }
    }

    /** A connection of its own to {@code port} on the loopback, closed after the test. */
    private ServerConnection connection(int port, long timeoutMillis, int failureLimit, long retryMillis) {
        return connection(port, timeoutMillis, failureLimit, retryMillis, null);
    }

    /** The same, authenticating as {@code credentials} (null: not at all). */
    private ServerConnection connection(int port, long timeoutMillis, int failureLimit, long retryMillis,
                                        ServerCredentials credentials) {
        ServerAddress address = new ServerAddress("127.0.0.1", port, 1);
        ServerConnection connection = new ServerConnection(address, new ServerHealth("memcached server " + address,
                failureLimit, retryMillis), loops.next(), timeoutMillis, 1 << 20, credentials, null);
        toClose.add(connection::close);
        return connection;
    }

    private static List<ServerRequest> noops(int count) {
        List<ServerRequest> noops = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            noops.add(noop());
        }
        return noops;
    }

    /**
     * Sends the requests together; each must fail with {@code failure}: {@link ReplyLost} when they were written
     * and got no reply, {@link ServerUnavailable} when they never reached the server. Returns how long the slowest
     * took.
     */
    private static long millisToFail(ServerConnection connection, List<ServerRequest> requests,
                                     Class<? extends Exception> failure) throws Exception {
        long start = System.nanoTime();
        connection.send(requests);
        for (ServerRequest request : requests) {
            assertFails(request, failure);
        }
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    }

    private static void assertFails(ServerRequest request, Class<? extends Exception> failure)
            throws InterruptedException {
        try {
            ServerReply reply = replyOf(request).get(BOUND_MILLIS, TimeUnit.MILLISECONDS);
            fail("expected a failure, got " + (reply == null ? "a quiet miss" : "status " + reply.status()));
        } catch (ExecutionException e) {
            assertInstanceOf(failure, e.getCause());
        } catch (TimeoutException e) {
            fail("neither answered nor failed within " + BOUND_MILLIS + " ms");
        }
    }

    @Test
    void aReplyToNoPendingRequestFailsEveryPendingOneQuietGetsIncludedAndClosesTheConnection() throws Exception {
        // A server (or something between) that answers with opaques nobody sent: no reply can be trusted, and a
        // quiet get passed over must not be taken for a miss.
        FakeServer server = server(FakeServer::answerWithAnotherOpaque);
        ServerConnection connection = connection(server.port(), 5000, 3, NO_RETRY);
        ServerRequest quiet = new ServerRequest(ServerRequest.GETQ, null, new byte[] {'a'}, null, 0,
                new ServerRequest.ReplyFuture());
        ServerRequest loud = noop();
        connection.send(List.of(quiet, loud));
        assertFails(quiet, ReplyLost.class);
        assertFails(loud, ReplyLost.class);
        ServerRequest next = noop();
        connection.send(List.of(next));
        assertFails(next, ReplyLost.class);
        assertEquals(2, server.accepted(), "each batch on a connection of its own: the first was closed");
    }

    @Test
    void aReplyThatDoesNotReadFailsItsOwnOperationAndTheConnectionServesTheNext() throws Exception {
        // Every request is answered with a success carrying a 3-byte value: an incr's reply should carry 8.
        FakeServer server = server(FakeServer::answerEverythingWithThreeBytes);
        MemcachedBackend backend = new MemcachedBackend(List.of(new ServerAddress("127.0.0.1", server.port(), 1)),
                loops, Clock.systemUTC(), 5000, 3, NO_RETRY, 1 << 20, null, null);
        toClose.add(backend::close);
        byte[] key = {'n'};

        Result counted = backend.execute(new Operation.Arithmetic(Namespace.DEFAULT, key, true, 1, 0, false,
                Item.NEVER, 0)).toCompletableFuture().get(BOUND_MILLIS, TimeUnit.MILLISECONDS);
        assertInstanceOf(Result.Failure.class, counted);
        assertEquals(Status.BACKEND_ERROR, ((Result.Failure) counted).status());

        Result read = backend.execute(new Operation.Get(Namespace.DEFAULT, key)).toCompletableFuture()
                .get(BOUND_MILLIS, TimeUnit.MILLISECONDS);
        assertInstanceOf(Result.Value.class, read);
        assertArrayEquals(new byte[] {1, 2, 3}, ((Result.Value) read).item().value());
        assertEquals(1, server.accepted(), "connections opened");
    }

    /** A noop whose reply the test reads ({@link #replyOf}). */
    private static ServerRequest noop() {
        return ServerRequest.noop(new ServerRequest.ReplyFuture());
    }

    private static ServerRequest.ReplyFuture replyOf(ServerRequest request) {
        return (ServerRequest.ReplyFuture) request.answer;
    }

    private static int probesSent(ServerConnection connection) throws Exception {
        return loops.next().submit(connection::probesSent).get();
    }

    /** A loopback port nobody listens on, so that connection attempts are refused. */
    private static int refusingPort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    /** The connection's current channel, read on its event loop (the field is confined to it). */
    private static Channel currentChannel(ServerConnection connection) throws ReflectiveOperationException {
        Field channel = PipelinedConnection.class.getDeclaredField("channel");
        channel.setAccessible(true);
        return (Channel) channel.get(connection);
    }

    private static void awaitTrue(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(BOUND_MILLIS);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                fail("no " + what + " within " + BOUND_MILLIS + " ms");
            }
            Thread.sleep(5);
        }
    }

    private FakeServer server(FakeServer.Behaviour behaviour) throws IOException {
        FakeServer server = new FakeServer(behaviour);
        toClose.add(server);
        return server;
    }

    private Blackhole blackhole() throws IOException {
        Blackhole blackhole = new Blackhole();
        toClose.add(blackhole);
        return blackhole;
    }

    /** A loopback server: each accepted connection is served by {@code behaviour} on a thread of its own. */
    private static final class FakeServer implements AutoCloseable {
        interface Behaviour {
            void serve(Socket socket) throws IOException;
        }

        private final ServerSocket socket;
        private final List<Socket> connections = new ArrayList<>();
        private final AtomicInteger accepted = new AtomicInteger();

        FakeServer(Behaviour behaviour) throws IOException {
            socket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
            Thread acceptor = new Thread(() -> {
                while (!socket.isClosed()) {
                    try {
                        Socket connection = socket.accept();
                        synchronized (connections) {
                            connections.add(connection);
                        }
                        accepted.incrementAndGet();
                        Thread server = new Thread(() -> {
                            try (connection) {
                                behaviour.serve(connection);
                            } catch (IOException e) {
                                // the client went away: nothing left to serve
                            }
                        }, "fake-memcached-connection");
                        server.setDaemon(true);
                        server.start();
                    } catch (IOException e) {
                        return; // closed
                    }
                }
            }, "fake-memcached");
            acceptor.setDaemon(true);
            acceptor.start();
        }

        /** Reads and drops everything: a server that is up but never answers (stopped, overloaded). */
        static void neverAnswer(Socket socket) throws IOException {
            InputStream in = socket.getInputStream();
            while (in.read(new byte[4096]) >= 0) {
                // drop it
            }
        }

        /**
         * Reads requests, counting them, and answers each noop once {@code answering} is set (a noop's reply tells
         * the client that the quiet requests before it were passed over); nothing else is ever answered.
         */
        static void answerNoops(Socket socket, AtomicBoolean answering, AtomicInteger received) throws IOException {
            answer(socket, request -> {
                received.incrementAndGet();
                return request.get(1) == ServerRequest.NOOP && answering.get()
                        ? ByteBuffer.allocate(24).put(0, (byte) 0x81).put(1, (byte) ServerRequest.NOOP)
                                .putInt(12, request.getInt(12)).array()
                        : null;
            });
        }

        /**
         * Offers PLAIN and refuses every authentication, as memcached does a wrong password; counts the requests
         * other than authentication's that reach it.
         */
        static void refuseAuthentication(Socket socket, AtomicInteger served) throws IOException {
            answer(socket, request -> {
                int opcode = request.get(1) & 0xff;
                if (opcode == ServerRequest.SASL_LIST_MECHS) {
                    return ByteBuffer.allocate(29).put(0, (byte) 0x81).put(1, (byte) opcode).putInt(8, 5)
                            .putInt(12, request.getInt(12)).put(24, "PLAIN".getBytes(StandardCharsets.US_ASCII))
                            .array();
                }
                if (opcode != ServerRequest.SASL_AUTH) {
                    served.incrementAndGet();
                }
                return ByteBuffer.allocate(24).put(0, (byte) 0x81).put(1, (byte) opcode).putShort(6, (short) 0x20)
                        .putInt(12, request.getInt(12)).array();
            });
        }

        /** Answers every request with a success of the same opcode and opaque whose value is 1, 2, 3. */
        /** Answers every request but a quiet get, each with an opaque a thousand above the request's. */
        static void answerWithAnotherOpaque(Socket socket) throws IOException {
            answer(socket, request -> request.get(1) == ServerRequest.GETQ ? null
                    : ByteBuffer.allocate(24).put(0, (byte) 0x81).put(1, request.get(1))
                            .putInt(12, request.getInt(12) + 1000).array());
        }

        static void answerEverythingWithThreeBytes(Socket socket) throws IOException {
            answer(socket, request -> ByteBuffer.allocate(27).put(0, (byte) 0x81).put(1, request.get(1))
                    .putInt(8, 3).putInt(12, request.getInt(12)).put(24, (byte) 1).put(25, (byte) 2)
                    .put(26, (byte) 3).array());
        }

        /** Reads request after request, and writes what {@code reply} makes of each one's header (null: nothing). */
        private static void answer(Socket socket, Function<ByteBuffer, byte[]> reply) throws IOException {
            DataInputStream in = new DataInputStream(socket.getInputStream());
            OutputStream out = socket.getOutputStream();
            byte[] header = new byte[24];
            while (true) {
                in.readFully(header);
                ByteBuffer request = ByteBuffer.wrap(header);
                in.skipNBytes(request.getInt(8));
                byte[] answer = reply.apply(request);
                if (answer != null) {
                    out.write(answer);
                    out.flush();
                }
            }
        }

        int port() {
            return socket.getLocalPort();
        }

        int accepted() {
            return accepted.get();
        }

        /** Closes the connections accepted so far, as a restarted server would. */
        void dropConnections() throws IOException {
            synchronized (connections) {
                for (Socket connection : connections) {
                    connection.close();
                }
            }
        }

        @Override
        public void close() throws IOException {
            socket.close();
            synchronized (connections) {
                for (Socket connection : connections) {
                    connection.close();
                }
            }
        }
    }

    /**
     * A port whose connection attempts hang, as for a host that drops packets: a listening socket that never
     * accepts, its backlog filled, so that the kernel drops every further SYN.
     */
    private static final class Blackhole implements AutoCloseable {
        private final ServerSocket socket;
        private final List<Socket> filling = new ArrayList<>();

        Blackhole() throws IOException {
            socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
            for (int i = 0; i < 10; i++) {
                Socket filler = new Socket();
                try {
                    filler.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port()), 200);
                    filling.add(filler);
                } catch (SocketTimeoutException e) {
                    filler.close();
                    return; // the backlog is full: this attempt hung
                }
            }
            close();
            throw new IllegalStateException("connections to a full backlog do not hang here");
        }

        int port() {
            return socket.getLocalPort();
        }

        @Override
        public void close() throws IOException {
            for (Socket filler : filling) {
                filler.close();
            }
            socket.close();
        }
    }
}
