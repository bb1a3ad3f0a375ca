package kvgate.backend.memcached;

import io.netty.bootstrap.Bootstrap;
import io.netty.handler.ssl.SslHandler;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.socket.nio.NioDomainSocketChannel;
import io.netty.channel.unix.DomainSocketAddress;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import io.netty.handler.flush.FlushConsolidationHandler;
import io.netty.util.concurrent.ScheduledFuture;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnixDomainSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import kvgate.spi.BackendContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One pipelined connection to one memcached server, owned by one event loop of the gateway: each loop has its own
 * connection to each server, so a client connection's requests and replies never change threads on the way, and
 * memcached spreads the loops' connections over its worker threads. Every field is confined to the loop; callers
 * on other threads hand requests over with {@link #send}.
 *
 * <p>Requests are written back to back; replies come in request order, matched by opaque, so quiet gets that got
 * no reply are known to have missed when a later reply arrives. A request without a reply within the timeout
 * closes the connection (the stream can no longer be trusted) and fails everything pending on it. One timer per
 * connection watches the oldest pending request (replies come in order, so it is the first to run late), instead
 * of a timer per request.
 *
 * <p>With credentials, a new connection authenticates before it carries anything else (SASL: the server's list of
 * mechanisms, then CRAM-MD5 or PLAIN); requests wait for it as they wait for the connection, and a refusal fails
 * them and counts as a failure, as a refused connection does.
 *
 * <p>Failures in a row (timeouts, refused or broken connections; a connection given up with all its pending
 * requests is one failure) up to the limit eject the server, on every loop at once ({@link ServerHealth}): its
 * requests fail at once until a probe, one at a time every retry interval, gets a noop answered again.
 */
final class ServerConnection {
    private static final Logger LOG = LoggerFactory.getLogger(ServerConnection.class);
    private static final int HEADER_LENGTH = 24;
    /** SASL's "continue": the reply carries the server's challenge. */
    private static final int AUTH_CONTINUE = 0x21;

    private final ServerAddress address;
    private final ServerHealth health;
    private final EventLoop loop;
    private final long timeoutMillis;
    private final long timeoutNanos;
    private final Bootstrap bootstrap;
    /**
     * Where the bootstrap connects: a host name left unresolved, so that every connection resolves it anew, or a
     * socket's path in the address type of the loop's transport.
     */
    private final SocketAddress remote;
    /** Who a new connection authenticates as; null when the servers do not ask. */
    private final ServerCredentials credentials;
    /** Requests written and not yet answered, oldest first. */
    private final ArrayDeque<ServerRequest> pending = new ArrayDeque<>();
    /** Requests waiting for the connection to be established. */
    private final List<ServerRequest> waiting = new ArrayList<>();
    private Channel channel;
    /** Whether a connection is being made, or made and authenticating: requests wait in {@link #waiting}. */
    private boolean connecting;
    private boolean closed;
    private int nextOpaque;
    /** Fires when the oldest pending request is due; null while nothing is pending. */
    private ScheduledFuture<?> timer;

    /**
     * @param credentials who to authenticate as; null when the servers do not ask
     * @param tls TLS to the server (over TCP only); null for plain connections
     */
    ServerConnection(ServerAddress address, ServerHealth health, EventLoop loop, long timeoutMillis, int maxReply,
                     ServerCredentials credentials, ServerTls tls) {
        this.address = address;
        this.credentials = credentials;
        this.health = health;
        this.loop = loop;
        this.timeoutMillis = timeoutMillis;
        this.timeoutNanos = TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        Class<? extends Channel> type = BackendContext.socketType(loop,
                address.endpoint() instanceof ServerAddress.UnixSocket);
        this.bootstrap = new Bootstrap()
                .group(loop)
                .channel(type)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Math.min(Integer.MAX_VALUE, timeoutMillis))
                .handler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        if (tls != null && address.endpoint() instanceof ServerAddress.Tcp tcp) {
                            ch.pipeline().addLast(tls.handler(ch.alloc(), tcp));
                        }
                        ch.pipeline()
                                // Flushes of the requests of many client connections served by this loop in one
                                // round of I/O become one write to the server, as a proxy's should.
                                .addLast(new FlushConsolidationHandler(
                                        FlushConsolidationHandler.DEFAULT_EXPLICIT_FLUSH_AFTER_FLUSHES, true))
                                .addLast(new LengthFieldBasedFrameDecoder(maxReply, 8, 4, 12, 0))
                                .addLast(new ReplyHandler());
                    }
                });
        if (address.endpoint() instanceof ServerAddress.Tcp) {
            // A Unix socket has no Nagle to turn off (and Netty would warn of an option it does not know).
            bootstrap.option(ChannelOption.TCP_NODELAY, true);
        }
        this.remote = remoteAddress(type, address.endpoint());
    }

    /**
     * The endpoint as the socket type's transport takes it: NIO's domain sockets are the JDK's, the native
     * transports' are Netty's own (each refuses the other's).
     */
    private static SocketAddress remoteAddress(Class<? extends Channel> type, ServerAddress.Endpoint endpoint) {
        if (endpoint instanceof ServerAddress.Tcp tcp) {
            return InetSocketAddress.createUnresolved(tcp.host(), tcp.port());
        }
        String path = ((ServerAddress.UnixSocket) endpoint).path();
        return type == NioDomainSocketChannel.class ? UnixDomainSocketAddress.of(path)
                : new DomainSocketAddress(path);
    }

    ServerAddress address() {
        return address;
    }

    /** Sends requests in order; a quiet get among them must be followed by a non-quiet request (a noop). */
    void send(List<ServerRequest> requests) {
        if (loop.inEventLoop()) {
            sendOnLoop(requests);
        } else {
            loop.execute(() -> sendOnLoop(requests));
        }
    }

    /** Whether the server is ejected now. */
    boolean ejected() {
        return health.ejected();
    }

    /** Probes sent to this connection's server so far. */
    int probesSent() {
        return health.probesSent();
    }

    private void sendOnLoop(List<ServerRequest> requests) {
        sendOnLoop(requests, false);
    }

    /** @param probe whether this is a probe's noop, the one request that goes to an ejected server */
    private void sendOnLoop(List<ServerRequest> requests, boolean probe) {
        if (closed) {
            fail(requests, "the backend is closed");
            return;
        }
        if (channel != null && !channel.isActive()) {
            // Dead, but its close handler has not run yet. Give it up now, before the ejection check (this may be
            // the failure that ejects): otherwise a new connection would take its place, the close handler would
            // no longer recognise it, and what was pending on it would stay queued in front of the new
            // connection's requests, a quiet get among them later read as a miss when their replies come.
            lost(channel, "connection lost");
        }
        if (health.ejected() && !probe) {
            fail(requests, "memcached server " + address + " is ejected after " + health.failuresInARow()
                    + " failures in a row");
            return;
        }
        if (channel != null && !connecting) {
            write(requests);
            return;
        }
        waiting.addAll(requests);
        connect();
    }

    /**
     * Writes the requests as one buffer; the flush is consolidated with those of other batches written in the same
     * round of the loop (see the pipeline), so each is not a system call of its own.
     */
    private void write(List<ServerRequest> requests) {
        int size = 0;
        for (ServerRequest request : requests) {
            size += request.encodedLength();
        }
        ByteBuf out = channel.alloc().ioBuffer(size);
        long deadline = System.nanoTime() + timeoutNanos;
        for (ServerRequest request : requests) {
            request.opaque = ++nextOpaque;
            request.deadline = deadline;
            request.encode(out);
            pending.add(request);
        }
        channel.writeAndFlush(out, channel.voidPromise());
        if (timer == null) {
            timer = loop.schedule(this::checkTimeout, timeoutNanos, TimeUnit.NANOSECONDS);
        }
    }

    /** The timer fired: give the connection up if its oldest request is late, else wait for that one's deadline. */
    private void checkTimeout() {
        timer = null;
        ServerRequest oldest = pending.peek();
        if (oldest == null || channel == null) {
            return;
        }
        long left = oldest.deadline - System.nanoTime();
        if (left <= 0) {
            lost(channel, "no reply within " + timeoutMillis + " ms");
        } else {
            timer = loop.schedule(this::checkTimeout, left, TimeUnit.NANOSECONDS);
        }
    }

    private void connect() {
        if (connecting) {
            return;
        }
        connecting = true;
        bootstrap.connect(remote).addListener((ChannelFutureListener) future -> {
            connecting = false;
            if (!future.isSuccess()) {
                failed("cannot connect: " + future.cause().getMessage());
                failWaiting("cannot connect to memcached server " + address + ": " + future.cause().getMessage());
                return;
            }
            if (closed) {
                future.channel().close();
                return;
            }
            Channel connected = future.channel();
            SslHandler tls = connected.pipeline().get(SslHandler.class);
            if (tls == null) {
                established(connected);
                return;
            }
            connecting = true; // until the handshake is done: requests wait, a failed one is a failed connect
            tls.handshakeFuture().addListener(handshake -> {
                connecting = false;
                if (handshake.isSuccess()) {
                    established(connected);
                    return;
                }
                String why = "TLS handshake failed: " + rootCause(handshake.cause());
                connected.close();
                failed(why);
                failWaiting("memcached server " + address + ": " + why);
            });
        });
    }

    /** The innermost message of a failure: "General OpenSslEngine problem" wraps the certificate's real trouble. */
    private static String rootCause(Throwable failure) {
        Throwable cause = failure;
        while (cause.getCause() != null && cause.getCause() != cause) {
            cause = cause.getCause();
        }
        return cause == failure ? String.valueOf(failure.getMessage())
                : failure.getMessage() + " (" + cause.getMessage() + ")";
    }

    /** A connection made (TLS included): it authenticates first when the servers ask, then carries requests. */
    private void established(Channel connected) {
        if (closed) {
            connected.close();
            return;
        }
        channel = connected;
        connected.closeFuture().addListener(ignored -> disconnected(connected));
        if (credentials == null) {
            ready();
        } else {
            connecting = true; // until the server has accepted the credentials
            authenticate(connected);
        }
    }

    /** The connection carries requests now: those that waited for it go first. */
    private void ready() {
        connecting = false;
        List<ServerRequest> ready = new ArrayList<>(waiting);
        waiting.clear();
        if (!ready.isEmpty()) {
            write(ready);
        }
    }

    /** Asks the server which mechanisms it offers, then authenticates with the best of ours among them. */
    private void authenticate(Channel connected) {
        step(connected, ServerRequest.SASL_LIST_MECHS, null, null, reply -> {
            String offered = new String(reply.value(), StandardCharsets.US_ASCII);
            String mechanism = reply.status() == ServerReply.SUCCESS ? ServerCredentials.mechanism(offered) : null;
            if (mechanism == null) {
                refused(connected, "offers no SASL mechanism of ours (CRAM-MD5, PLAIN): status 0x"
                        + Integer.toHexString(reply.status()) + ", \"" + offered + "\"");
            } else if (mechanism.equals(ServerCredentials.PLAIN)) {
                step(connected, ServerRequest.SASL_AUTH, mechanism, credentials.plain(),
                        done -> authenticated(connected, done, mechanism));
            } else {
                step(connected, ServerRequest.SASL_AUTH, mechanism, null, challenge -> {
                    if (challenge.status() != AUTH_CONTINUE) {
                        refused(connected, mechanism + " did not start: status 0x"
                                + Integer.toHexString(challenge.status()));
                        return;
                    }
                    step(connected, ServerRequest.SASL_STEP, mechanism, credentials.cramMd5(challenge.value()),
                            done -> authenticated(connected, done, mechanism));
                });
            }
        });
    }

    private void authenticated(Channel connected, ServerReply reply, String mechanism) {
        if (reply.status() == ServerReply.SUCCESS) {
            ready();
        } else {
            refused(connected, "refused " + credentials.user() + " (" + mechanism + "): status 0x"
                    + Integer.toHexString(reply.status()));
        }
    }

    /**
     * One request of the authentication on {@code connected}; {@code next} gets its reply, unless the connection was
     * given up meanwhile (a timeout, a closed connection: counted as a failure, and the requests waiting for the
     * connection failed, where it was lost).
     */
    private void step(Channel connected, int opcode, String mechanism, byte[] data,
                      Consumer<ServerReply> next) {
        ServerRequest.ReplyFuture answer = new ServerRequest.ReplyFuture();
        answer.whenComplete((reply, error) -> { // on the loop, as every answer
            // A lost reply gave the connection up (lost), which failed what waited for it.
            if (error == null && connected == channel) {
                next.accept(reply);
            }
        });
        write(List.of(new ServerRequest(opcode, null, mechanism == null ? null
                : mechanism.getBytes(StandardCharsets.US_ASCII), data, 0, answer)));
    }

    /**
     * The server would not authenticate this connection: it is closed, the requests waiting for it fail, and that
     * counts as one failure in a row (enough of them eject the server, which is then probed as after any outage).
     */
    private void refused(Channel connected, String why) {
        LOG.warn("memcached server {} {}", address, why);
        channel = null;
        connecting = false;
        connected.close();
        if (timer != null) {
            timer.cancel(false);
            timer = null;
        }
        failed("authentication " + why);
        failWaiting("memcached server " + address + " " + why);
    }

    private void failWaiting(String why) {
        List<ServerRequest> failed = new ArrayList<>(waiting);
        waiting.clear();
        fail(failed, why);
    }

    private void disconnected(Channel gone) {
        lost(gone, "connection lost");
    }

    /**
     * Gives up a connection: closes it and fails everything pending on it, counting all of that as ONE failure in a
     * row. A timeout comes here before the close does (through {@link #disconnected}), which then finds the
     * connection no longer current and counts nothing: one timed-out request, or one lost connection with many
     * requests pending, must not count as several failures toward the limit.
     */
    private void lost(Channel gone, String why) {
        if (gone != channel) {
            return;
        }
        channel = null;
        gone.close();
        if (timer != null) {
            timer.cancel(false);
            timer = null;
        }
        if (!pending.isEmpty()) {
            if (!closed) {
                failed(why + " with " + pending.size() + " requests pending");
            }
            ReplyLost failure = new ReplyLost("memcached server " + address + ": " + why);
            for (ServerRequest request : pending) {
                request.answer.failed(failure);
            }
            pending.clear();
        }
        if (connecting) {
            // Lost while authenticating (counted above, before anyone hears of it): what waited for the connection
            // will not get it.
            connecting = false;
            failWaiting("memcached server " + address + ": " + why + " while authenticating");
        }
    }

    /** Counts one failure in a row; when that ejects the server, this connection runs the probes. */
    private void failed(String why) {
        if (health.failed(why)) {
            loop.schedule(this::probe, health.retryMillis(), TimeUnit.MILLISECONDS);
        }
    }

    /**
     * After an ejection: a noop through a fresh connection, the one request an ejected server gets. The server
     * stays ejected while the probe connects: other requests must not wait on its connection attempt, which for a
     * host that does not answer at all lasts until the timeout. Only the answer ends the ejection (in
     * {@link #answered}). The next probe is scheduled only once this one has failed, so that probes never pile up
     * however many failures the outage brings.
     */
    private void probe() {
        if (closed || !health.ejected()) {
            endProbing();
            return;
        }
        health.probeSent();
        ServerRequest.ReplyFuture answered = new ServerRequest.ReplyFuture();
        answered.whenComplete((reply, error) -> { // completed on the loop, like every request
            if (error == null || closed || !health.ejected()) {
                endProbing();
            } else {
                LOG.debug("memcached server {} still down: {}", address, error.getMessage());
                loop.schedule(this::probe, health.retryMillis(), TimeUnit.MILLISECONDS);
            }
        });
        sendOnLoop(List.of(ServerRequest.noop(answered)), true);
    }

    /** Ends this connection's probe cycle, or goes on with it when the server was ejected again meanwhile. */
    private void endProbing() {
        if (health.probeEnded() && !closed) {
            loop.schedule(this::probe, health.retryMillis(), TimeUnit.MILLISECONDS);
        }
    }

    private void received(ServerReply reply) {
        ServerRequest first = pending.peek();
        if (first != null && first.opcode == ServerRequest.STAT && first.opaque == reply.opaque()
                && reply.status() == ServerReply.SUCCESS && reply.key().length > 0) {
            first.parts.add(reply); // one stat of many; the one with an empty key ends them
            return;
        }
        if ((first == null || first.opaque != reply.opaque()) && !awaited(reply.opaque())) {
            // Not one of ours: the stream cannot be trusted, so nothing pending is answered from it, and a quiet get
            // passed over is not taken for a miss.
            LOG.warn("memcached server {} sent a reply nobody waits for (opaque {}); closing", address,
                    reply.opaque());
            lost(channel, "a reply nobody waits for (opaque " + reply.opaque() + ")");
            return;
        }
        while (!pending.isEmpty()) {
            ServerRequest head = pending.poll();
            if (head.opaque == reply.opaque()) {
                if (!head.authentication()) {
                    // Only a request served counts: a server that answers but refuses the credentials is not well.
                    health.answered();
                }
                head.answer.replied(reply);
                return;
            }
            if (head.quiet()) {
                head.answer.replied(null); // passed over: a quiet miss
            } else {
                head.answer.failed(new ReplyLost("memcached server " + address
                        + " skipped a reply"));
            }
        }
    }

    /** Whether a request pending on this connection has {@code opaque}; asked when it is not the first's. */
    private boolean awaited(int opaque) {
        for (ServerRequest request : pending) {
            if (request.opaque == opaque) {
                return true;
            }
        }
        return false;
    }

    private static void fail(List<ServerRequest> requests, String why) {
        ServerUnavailable failure = new ServerUnavailable(why);
        for (ServerRequest request : requests) {
            request.answer.failed(failure);
        }
    }

    void close() {
        if (loop.isShuttingDown()) {
            // The gateway stops its event loops before it closes the backend: their shutdown has closed the
            // connection already, and the loop takes no more tasks (execute would throw).
            return;
        }
        try {
            loop.execute(() -> {
                closed = true;
                if (channel != null) {
                    channel.close();
                }
                List<ServerRequest> left = new ArrayList<>(waiting);
                waiting.clear();
                fail(left, "the backend is closed");
            });
        } catch (RejectedExecutionException e) {
            // The loop began shutting down after the check above: its shutdown closes the connection.
        }
    }

    private final class ReplyHandler extends SimpleChannelInboundHandler<ByteBuf> {
        @Override
        protected void channelRead0(ChannelHandlerContext ctx, ByteBuf frame) {
            if (ctx.channel() != channel) {
                return; // a connection given up within this read: what else it brought is not trusted
            }
            int magic = frame.getUnsignedByte(0);
            if (magic != 0x81) {
                LOG.warn("memcached server {} sent magic {}; closing", address, magic);
                ctx.close();
                return;
            }
            int keyLength = frame.getUnsignedShort(2);
            int extrasLength = frame.getUnsignedByte(4);
            int bodyLength = frame.getInt(8);
            if (extrasLength + keyLength > bodyLength) {
                LOG.warn("memcached server {} sent a malformed reply; closing", address);
                ctx.close();
                return;
            }
            byte[] extras = new byte[extrasLength];
            byte[] key = new byte[keyLength];
            byte[] value = new byte[bodyLength - extrasLength - keyLength];
            frame.getBytes(HEADER_LENGTH, extras);
            frame.getBytes(HEADER_LENGTH + extrasLength, key);
            frame.getBytes(HEADER_LENGTH + extrasLength + keyLength, value);
            received(new ServerReply(frame.getUnsignedByte(1), frame.getUnsignedShort(6), frame.getInt(12),
                    frame.getLong(16), extras, key, value));
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            LOG.debug("memcached server {} connection error", address, cause);
            ctx.close();
        }
    }
}
