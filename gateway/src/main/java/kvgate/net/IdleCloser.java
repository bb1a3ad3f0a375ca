package kvgate.net;

import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Closes a connection idle for the listener's idle timeout. On a protocol's listener only a whole request or a reply
 * is activity: the protocol's decoder reports each request it completes ({@link #active}), so a client trickling a
 * byte at a time into a request it never finishes is idle all the while, where a timer reset by every byte read would
 * keep it forever. On the operators' ports, whose decoders report nothing, every read is activity.
 */
public final class IdleCloser extends ChannelDuplexHandler {
    private static final Logger LOG = LoggerFactory.getLogger(IdleCloser.class);

    private final String protocol;
    private final long timeoutNanos;
    private final boolean requestsReported;
    /** The last activity ({@link System#nanoTime}); written on the connection's thread only. */
    private long lastActivity;
    private ScheduledFuture<?> check;

    /**
     * @param requestsReported whether the protocol's decoder reports each request it completes, so that reads alone
     *     are not activity
     */
    public IdleCloser(String protocol, int timeoutSeconds, boolean requestsReported) {
        this.protocol = protocol;
        this.timeoutNanos = TimeUnit.SECONDS.toNanos(timeoutSeconds);
        this.requestsReported = requestsReported;
    }

    /** A whole request was read; called on the connection's thread. */
    public void active() {
        lastActivity = System.nanoTime();
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        lastActivity = System.nanoTime();
        if (ctx.channel().isActive()) {
            schedule(ctx, timeoutNanos);
        }
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) throws Exception {
        if (check == null) {
            lastActivity = System.nanoTime();
            schedule(ctx, timeoutNanos);
        }
        super.channelActive(ctx);
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        if (check != null) {
            check.cancel(false);
            check = null;
        }
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object message) throws Exception {
        if (!requestsReported) {
            lastActivity = System.nanoTime();
        }
        super.channelRead(ctx, message);
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object message, ChannelPromise promise) throws Exception {
        lastActivity = System.nanoTime();
        super.write(ctx, message, promise);
    }

    private void schedule(ChannelHandlerContext ctx, long delayNanos) {
        check = ctx.executor().schedule(() -> due(ctx), delayNanos, TimeUnit.NANOSECONDS);
    }

    private void due(ChannelHandlerContext ctx) {
        check = null;
        if (!ctx.channel().isOpen()) {
            return;
        }
        long left = lastActivity + timeoutNanos - System.nanoTime();
        if (left > 0) {
            schedule(ctx, left);
            return;
        }
        LOG.debug("closing idle {} connection from {}", protocol, ctx.channel().remoteAddress());
        ctx.close();
    }
}
