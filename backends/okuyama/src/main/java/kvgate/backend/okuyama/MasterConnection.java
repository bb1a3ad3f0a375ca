package kvgate.backend.okuyama;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.EventLoop;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.LineBasedFrameDecoder;
import io.netty.handler.flush.FlushConsolidationHandler;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import kvgate.spi.BackendContext;
import kvgate.spi.PipelinedConnection;
import kvgate.spi.ServerHealth;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One connection to one okuyama MasterNode, owned by one event loop of the gateway, carrying one request at a time
 * (the others queue behind it): a MasterNode answers a connection's lines one after another, and delays a second
 * small reply until the first is acknowledged. Each reply line belongs to the oldest request without one. A reply starting with {@code -1} gives the
 * connection up: the MasterNode closes it after such a reply. What becomes of a request that failed here is the
 * {@link Failover}'s decision; an ejected master is probed with an initClient line ({@code 0}).
 */
final class MasterConnection extends PipelinedConnection<MasterRequest> {
    private static final Logger LOG = LoggerFactory.getLogger(MasterConnection.class);
    /** Ends a connection without a reply, as okuyama's own client ends one; an empty line would do the same. */
    static final String CLOSE = "(&imdst9999&)";

    /** Where requests go that failed on this connection. Called on the connection's loop. */
    interface Failover {
        /**
         * @param written whether the request reached the master (it may have taken effect) or was never sent
         */
        void failed(MasterRequest request, String why, boolean written);
    }

    private final NodeAddress address;
    private final int maxLine;
    private final Failover failover;

    /**
     * @param health the master's health, shared by its connections on every loop
     * @param maxLine the longest reply line read (a value's Base64 and more); a longer one gives the connection up
     */
    MasterConnection(NodeAddress address, ServerHealth health, EventLoop loop, long timeoutMillis, int maxLine,
                     Failover failover) {
        // One request at a time, as okuyama's own clients send them: a MasterNode writes with Nagle's algorithm on,
        // so a second reply on a connection waits for the first to be acknowledged, which a client waiting for
        // that second reply delays by some 40 ms.
        super(health, loop, timeoutMillis, BackendContext.socketType(loop, false),
                InetSocketAddress.createUnresolved(address.host(), address.port()), true, 1);
        this.address = address;
        this.maxLine = maxLine;
        this.failover = failover;
    }

    @Override
    protected void pipeline(Channel channel) {
        channel.pipeline()
                .addLast(new FlushConsolidationHandler(FlushConsolidationHandler.DEFAULT_EXPLICIT_FLUSH_AFTER_FLUSHES,
                        true))
                .addLast(new LineBasedFrameDecoder(maxLine, true, true))
                .addLast(new ReplyHandler());
    }

    @Override
    protected MasterRequest probe(CompletableFuture<Void> answered) {
        MasterRequest probe = new MasterRequest("0", false);
        probe.probe = true;
        probe.reply.whenComplete((reply, error) -> {
            if (error == null) {
                answered.complete(null);
            } else {
                answered.completeExceptionally(error);
            }
        });
        return probe;
    }

    @Override
    protected void fail(List<MasterRequest> requests, String why, boolean written) {
        for (MasterRequest request : requests) {
            if (request.probe) {
                request.reply.completeExceptionally(new MasterUnavailable(why));
            } else {
                failover.failed(request, why, written);
            }
        }
    }

    /** Says goodbye as okuyama's client does, so the master ends its side at once, then closes. */
    @Override
    protected void closing(Channel gone) {
        gone.writeAndFlush(gone.alloc().buffer(CLOSE.length() + 1)
                        .writeBytes((CLOSE + "\n").getBytes(StandardCharsets.US_ASCII)))
                .addListener(ChannelFutureListener.CLOSE);
    }

    private void received(String line) {
        MasterRequest head = pending().poll();
        if (head == null) {
            LOG.warn("okuyama master {} sent a line nobody waits for; closing: {}", address, shortened(line));
            lost(channel(), "a reply nobody waits for");
            return;
        }
        head.reply.complete(line);
        if (line.startsWith("-1,")) {
            // The master refused the line as malformed and closes the connection: nothing behind it is answered.
            lost(channel(), "the master refused a request (" + shortened(line) + ")");
            return;
        }
        answered();
    }

    private static String shortened(String line) {
        return line.length() <= 120 ? line : line.substring(0, 120) + "...";
    }

    private final class ReplyHandler extends SimpleChannelInboundHandler<ByteBuf> {
        @Override
        protected void channelRead0(ChannelHandlerContext ctx, ByteBuf frame) {
            if (ctx.channel() != channel()) {
                return; // a connection given up within this read
            }
            received(frame.toString(StandardCharsets.UTF_8));
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            LOG.debug("okuyama master {} connection error", address, cause);
            lost(ctx.channel(), String.valueOf(cause.getMessage()));
        }
    }
}
