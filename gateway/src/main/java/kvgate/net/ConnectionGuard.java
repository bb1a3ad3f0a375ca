package kvgate.net;

import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import java.util.concurrent.atomic.AtomicInteger;
import kvgate.metrics.GatewayMetrics;

/**
 * First in every client pipeline: closes at once a connection from outside the listener's access list, counts
 * connections, and closes at once those beyond {@code max_connections} (over all listeners, as memcached's -c does)
 * or beyond the listener's own limit.
 */
@ChannelHandler.Sharable
public final class ConnectionGuard extends ChannelInboundHandlerAdapter {

    private final String protocol;
    private final int maxConnections;
    private final AtomicInteger open;
    private final int listenerMaxConnections;
    private final AtomicInteger listenerOpen = new AtomicInteger();
    private final GatewayMetrics metrics;
    private final boolean requestsReported;
    private final AccessList allowed;
    private final ListenerTls tls;
    /** Connections whose TLS handshake failed (a plain client on a TLS port, an untrusted certificate). */
    private final RefusalLog handshakes;
    /** Connections closed for coming from outside the access list. */
    private final RefusalLog outside;
    /** Connections closed for the limit over all listeners, and for this listener's own. */
    private final RefusalLog overAll;
    private final RefusalLog overOwn;

    /**
     * @param open the count of open connections shared by every listener's guard
     * @param maxConnections the limit over all listeners, 0 for none
     * @param listenerMaxConnections the limit of this listener alone, 0 for none
     * @param requestsReported whether the listener's decoders report each request they complete (a protocol's
     *     {@link SkippingFrameDecoder}s do), so that its idle timeout counts requests rather than bytes
     * @param allowed the client networks the listener accepts
     * @param tls the listener's TLS, or null for plain connections
     */
    public ConnectionGuard(String protocol, int maxConnections, AtomicInteger open, int listenerMaxConnections,
                           GatewayMetrics metrics, boolean requestsReported, AccessList allowed, ListenerTls tls) {
        this.requestsReported = requestsReported;
        this.tls = tls;
        this.handshakes = new RefusalLog("closing " + protocol + " connections whose TLS handshake failed",
                metrics.refusals(protocol, "tls_handshake")::increment);
        this.allowed = allowed;
        this.outside = new RefusalLog("closing " + protocol + " connections from outside " + protocol
                + ".allow (" + allowed + ")", metrics.refusals(protocol, "access_list")::increment);
        this.protocol = protocol;
        this.maxConnections = maxConnections;
        this.open = open;
        this.listenerMaxConnections = listenerMaxConnections;
        this.metrics = metrics;
        this.overAll = new RefusalLog("closing " + protocol + " connections over max_connections (" + maxConnections
                + ")", () -> metrics.connectionRejected(protocol));
        this.overOwn = new RefusalLog("closing " + protocol + " connections over " + protocol + ".max_connections ("
                + listenerMaxConnections + ")", () -> metrics.connectionRejected(protocol));
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) throws Exception {
        if (!allowed.allows(ctx.channel().remoteAddress())) {
            outside.refused(ctx.channel().remoteAddress());
            ctx.pipeline().remove(this); // never counted in, so not counted out
            ctx.close();
            return;
        }
        int now = open.incrementAndGet();
        int here = listenerOpen.incrementAndGet();
        boolean overall = maxConnections > 0 && now > maxConnections;
        if (overall || (listenerMaxConnections > 0 && here > listenerMaxConnections)) {
            open.decrementAndGet();
            listenerOpen.decrementAndGet();
            // A flood of connections is a few lines a minute, each with its count, not a line per connection.
            (overall ? overAll : overOwn).refused(ctx.channel().remoteAddress());
            ctx.pipeline().remove(this); // so channelInactive does not count it out again
            ctx.close();
            return;
        }
        metrics.connectionOpened(protocol);
        super.channelActive(ctx);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        open.decrementAndGet();
        listenerOpen.decrementAndGet();
        metrics.connectionClosed(protocol);
        super.channelInactive(ctx);
    }

    String protocol() {
        return protocol;
    }

    /** The listener's TLS, or null for plain connections. */
    ListenerTls tls() {
        return tls;
    }

    /** A failed TLS handshake is counted and logged with why; the TLS handler closes the connection. */
    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object event) throws Exception {
        if (event instanceof SslHandshakeCompletionEvent handshake && !handshake.isSuccess()) {
            // The cause, cut short: a plain-text client's bytes would follow it in some messages.
            String why = String.valueOf(handshake.cause().getMessage());
            handshakes.refused(ctx.channel().remoteAddress() + " (" + (why.length() > 100 ? why.substring(0, 100)
                    + "..." : why) + ")");
        }
        super.userEventTriggered(ctx, event);
    }

    /** Whether its connections' decoders report each request they complete to the {@link IdleCloser}. */
    boolean requestsReported() {
        return requestsReported;
    }
}
