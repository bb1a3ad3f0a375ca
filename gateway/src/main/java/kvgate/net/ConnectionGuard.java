package kvgate.net;

import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.timeout.IdleStateEvent;
import java.util.concurrent.atomic.AtomicInteger;
import kvgate.metrics.GatewayMetrics;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * First in every client pipeline: counts connections, closes at once those beyond {@code max_connections} (over
 * all listeners, as memcached's -c does) or beyond the listener's own limit, and closes idle ones when an idle
 * timeout fires.
 */
@ChannelHandler.Sharable
public final class ConnectionGuard extends ChannelInboundHandlerAdapter {
    private static final Logger LOG = LoggerFactory.getLogger(ConnectionGuard.class);

    private final String protocol;
    private final int maxConnections;
    private final AtomicInteger open;
    private final int listenerMaxConnections;
    private final AtomicInteger listenerOpen = new AtomicInteger();
    private final GatewayMetrics metrics;
    /** Connections closed for the limit over all listeners, and for this listener's own. */
    private final RefusalLog overAll;
    private final RefusalLog overOwn;

    /**
     * @param open the count of open connections shared by every listener's guard
     * @param maxConnections the limit over all listeners, 0 for none
     * @param listenerMaxConnections the limit of this listener alone, 0 for none
     */
    public ConnectionGuard(String protocol, int maxConnections, AtomicInteger open, int listenerMaxConnections,
                           GatewayMetrics metrics) {
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

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object event) throws Exception {
        if (event instanceof IdleStateEvent) {
            LOG.debug("closing idle {} connection from {}", protocol, ctx.channel().remoteAddress());
            ctx.close();
            return;
        }
        super.userEventTriggered(ctx, event);
    }
}
