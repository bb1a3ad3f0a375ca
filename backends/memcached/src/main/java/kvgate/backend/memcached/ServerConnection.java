package kvgate.backend.memcached;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.EventLoop;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.socket.nio.NioDomainSocketChannel;
import io.netty.channel.unix.DomainSocketAddress;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import io.netty.handler.flush.FlushConsolidationHandler;
import io.netty.handler.ssl.SslHandler;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnixDomainSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;
import kvgate.spi.BackendContext;
import kvgate.spi.PipelinedConnection;
import kvgate.spi.ServerHealth;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One pipelined connection to one memcached server, owned by one event loop of the gateway: each loop has its own
 * connection to each server, so a client connection's requests and replies never change threads on the way, and
 * memcached spreads the loops' connections over its worker threads. The connection's life (timeouts, loss, ejection,
 * probes) is {@link PipelinedConnection}'s; this class adds memcached's binary protocol.
 *
 * <p>Replies come in request order, matched by opaque, so quiet gets that got no reply are known to have missed when
 * a later reply arrives. With TLS, a new connection's handshake comes first; with credentials, it then authenticates
 * (SASL: the server's list of mechanisms, then CRAM-MD5 or PLAIN) before it carries anything else.
 */
final class ServerConnection extends PipelinedConnection<ServerRequest> {
    private static final Logger LOG = LoggerFactory.getLogger(ServerConnection.class);
    private static final int HEADER_LENGTH = 24;
    /** SASL's "continue": the reply carries the server's challenge. */
    private static final int AUTH_CONTINUE = 0x21;

    private final ServerAddress address;
    private final int maxReply;
    /** Who a new connection authenticates as; null when the servers do not ask. */
    private final ServerCredentials credentials;
    private final ServerTls tls;
    private int nextOpaque;

    /**
     * @param credentials who to authenticate as; null when the servers do not ask
     * @param tls TLS to the server (over TCP only); null for plain connections
     */
    ServerConnection(ServerAddress address, ServerHealth health, EventLoop loop, long timeoutMillis, int maxReply,
                     ServerCredentials credentials, ServerTls tls) {
        super(health, loop, timeoutMillis, type(loop, address), remoteAddress(type(loop, address),
                address.endpoint()), address.endpoint() instanceof ServerAddress.Tcp);
        this.address = address;
        this.maxReply = maxReply;
        this.credentials = credentials;
        this.tls = tls;
    }

    private static Class<? extends Channel> type(EventLoop loop, ServerAddress address) {
        return BackendContext.socketType(loop, address.endpoint() instanceof ServerAddress.UnixSocket);
    }

    /**
     * The endpoint as the socket type's transport takes it: a host name left unresolved, so that every connection
     * resolves it anew; NIO's domain sockets are the JDK's, the native transports' are Netty's own (each refuses the
     * other's).
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

    @Override
    protected void pipeline(Channel ch) {
        if (tls != null && address.endpoint() instanceof ServerAddress.Tcp tcp) {
            ch.pipeline().addLast(tls.handler(ch.alloc(), tcp));
        }
        ch.pipeline()
                // Flushes of the requests of many client connections served by this loop in one round of I/O
                // become one write to the server, as a proxy's should.
                .addLast(new FlushConsolidationHandler(FlushConsolidationHandler.DEFAULT_EXPLICIT_FLUSH_AFTER_FLUSHES,
                        true))
                .addLast(new LengthFieldBasedFrameDecoder(maxReply, 8, 4, 12, 0))
                .addLast(new ReplyHandler());
    }

    @Override
    protected void writing(ServerRequest request) {
        request.opaque = ++nextOpaque;
    }

    @Override
    protected ServerRequest probe(CompletableFuture<Void> answered) {
        ServerRequest.ReplyFuture reply = new ServerRequest.ReplyFuture();
        reply.whenComplete((ignored, error) -> {
            if (error == null) {
                answered.complete(null);
            } else {
                LOG.debug("memcached server {} still down: {}", address, error.getMessage());
                answered.completeExceptionally(error);
            }
        });
        return ServerRequest.noop(reply);
    }

    @Override
    protected void fail(List<ServerRequest> requests, String why, boolean written) {
        Exception failure = written ? new ReplyLost(why) : new ServerUnavailable(why);
        for (ServerRequest request : requests) {
            request.answer.failed(failure);
        }
    }

    /** The TLS handshake, when the connection has one, then the authentication, when the servers ask. */
    @Override
    protected CompletionStage<Void> prepare(Channel connected) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        SslHandler handshake = connected.pipeline().get(SslHandler.class);
        if (handshake == null) {
            authenticate(connected, done);
        } else {
            handshake.handshakeFuture().addListener(shaken -> {
                if (shaken.isSuccess()) {
                    authenticate(connected, done);
                } else {
                    done.completeExceptionally(new IllegalStateException("TLS handshake failed: "
                            + rootCause(shaken.cause())));
                }
            });
        }
        return done;
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

    /** Asks the server which mechanisms it offers, then authenticates with the best of ours among them. */
    private void authenticate(Channel connected, CompletableFuture<Void> done) {
        if (credentials == null) {
            done.complete(null);
            return;
        }
        step(connected, ServerRequest.SASL_LIST_MECHS, null, null, reply -> {
            String offered = new String(reply.value(), StandardCharsets.US_ASCII);
            String mechanism = reply.status() == ServerReply.SUCCESS ? ServerCredentials.mechanism(offered) : null;
            if (mechanism == null) {
                refused(done, "offers no SASL mechanism of ours (CRAM-MD5, PLAIN): status 0x"
                        + Integer.toHexString(reply.status()) + ", \"" + offered + "\"");
            } else if (mechanism.equals(ServerCredentials.PLAIN)) {
                step(connected, ServerRequest.SASL_AUTH, mechanism, credentials.plain(),
                        last -> authenticated(done, last, mechanism));
            } else {
                step(connected, ServerRequest.SASL_AUTH, mechanism, null, challenge -> {
                    if (challenge.status() != AUTH_CONTINUE) {
                        refused(done, mechanism + " did not start: status 0x"
                                + Integer.toHexString(challenge.status()));
                        return;
                    }
                    step(connected, ServerRequest.SASL_STEP, mechanism, credentials.cramMd5(challenge.value()),
                            last -> authenticated(done, last, mechanism));
                });
            }
        });
    }

    private void authenticated(CompletableFuture<Void> done, ServerReply reply, String mechanism) {
        if (reply.status() == ServerReply.SUCCESS) {
            done.complete(null);
        } else {
            refused(done, "refused " + credentials.user() + " (" + mechanism + "): status 0x"
                    + Integer.toHexString(reply.status()));
        }
    }

    private void refused(CompletableFuture<Void> done, String why) {
        LOG.warn("memcached server {} {}", address, why);
        done.completeExceptionally(new IllegalStateException("authentication " + why));
    }

    /**
     * One request of the authentication on {@code connected}; {@code next} gets its reply, unless the connection was
     * given up meanwhile (a timeout, a closed connection: counted as a failure, and the requests waiting for the
     * connection failed, where it was lost).
     */
    private void step(Channel connected, int opcode, String mechanism, byte[] data, Consumer<ServerReply> next) {
        ServerRequest.ReplyFuture answer = new ServerRequest.ReplyFuture();
        answer.whenComplete((reply, error) -> { // on the loop, as every answer
            if (error == null && connected == channel()) {
                next.accept(reply);
            }
        });
        write(List.of(new ServerRequest(opcode, null, mechanism == null ? null
                : mechanism.getBytes(StandardCharsets.US_ASCII), data, 0, answer)));
    }

    private void received(ServerReply reply) {
        ServerRequest first = pending().peek();
        if (first != null && first.opcode == ServerRequest.STAT && first.opaque == reply.opaque()
                && reply.status() == ServerReply.SUCCESS && reply.key().length > 0) {
            first.parts.add(reply); // one stat of many; the one with an empty key ends them
            return;
        }
        if ((first == null || first.opaque != reply.opaque()) && !awaited(reply.opaque())) {
            LOG.warn("memcached server {} sent a reply nobody waits for (opaque {}); closing", address,
                    reply.opaque());
            lost(channel(), "a reply nobody waits for (opaque " + reply.opaque() + ")");
            return;
        }
        while (!pending().isEmpty()) {
            ServerRequest head = pending().poll();
            if (head.opaque == reply.opaque()) {
                if (!head.authentication()) {
                    answered();
                }
                head.answer.replied(reply);
                return;
            }
            if (head.quiet()) {
                head.answer.replied(null); // passed over: a quiet miss
            } else {
                head.answer.failed(new ReplyLost("memcached server " + address + " skipped a reply"));
            }
        }
    }

    /** Whether a request pending on this connection has {@code opaque}; asked when it is not the first's. */
    private boolean awaited(int opaque) {
        for (ServerRequest request : pending()) {
            if (request.opaque == opaque) {
                return true;
            }
        }
        return false;
    }

    private final class ReplyHandler extends SimpleChannelInboundHandler<ByteBuf> {
        @Override
        protected void channelRead0(ChannelHandlerContext ctx, ByteBuf frame) {
            if (ctx.channel() != channel()) {
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
