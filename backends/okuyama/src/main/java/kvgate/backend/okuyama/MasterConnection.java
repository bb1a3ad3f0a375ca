package kvgate.backend.okuyama;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.LineBasedFrameDecoder;
import io.netty.handler.flush.FlushConsolidationHandler;
import io.netty.util.concurrent.ScheduledFuture;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import kvgate.spi.BackendContext;
import kvgate.spi.CircuitBreaker;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One pipelined connection to one okuyama MasterNode, owned by one event loop of the gateway. A MasterNode reads a
 * connection's lines one after another and answers each before it reads the next, so requests are written back to
 * back and each reply line belongs to the oldest request without one.
 *
 * <p>A request without a reply within the timeout gives the connection up (the stream can no longer be trusted)
 * with everything pending on it; so does a reply that starts with {@code -1}, after which the MasterNode closes the
 * connection. Failures in a row up to the limit eject the master on every loop at once (its {@link CircuitBreaker},
 * shared): its requests go to the next master at once until a probe, an initClient line ({@code 0}) every retry
 * interval, is answered. What becomes of a request that failed here is the {@link Failover}'s decision.
 */
final class MasterConnection {
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
    private final CircuitBreaker health;
    private final EventLoop loop;
    private final long timeoutMillis;
    private final long timeoutNanos;
    private final Bootstrap bootstrap;
    private final Failover failover;
    private final ArrayDeque<MasterRequest> pending = new ArrayDeque<>();
    private final List<MasterRequest> waiting = new ArrayList<>();
    private Channel channel;
    private boolean connecting;
    private boolean closed;
    private ScheduledFuture<?> timer;

    /**
     * @param health the master's breaker, shared by its connections on every loop
     * @param maxLine the longest reply line read (a value's Base64 and more); a longer one gives the connection up
     */
    MasterConnection(NodeAddress address, CircuitBreaker health, EventLoop loop, long timeoutMillis, int maxLine,
                     Failover failover) {
        this.address = address;
        this.health = health;
        this.loop = loop;
        this.timeoutMillis = timeoutMillis;
        this.timeoutNanos = TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        this.failover = failover;
        this.bootstrap = new Bootstrap()
                .group(loop)
                .channel(BackendContext.socketType(loop, false))
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Math.min(Integer.MAX_VALUE, timeoutMillis))
                .option(ChannelOption.TCP_NODELAY, true)
                .handler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        ch.pipeline()
                                .addLast(new FlushConsolidationHandler(
                                        FlushConsolidationHandler.DEFAULT_EXPLICIT_FLUSH_AFTER_FLUSHES, true))
                                .addLast(new LineBasedFrameDecoder(maxLine, true, true))
                                .addLast(new ReplyHandler());
                    }
                });
    }

    NodeAddress address() {
        return address;
    }

    boolean ejected() {
        return health.isOpen();
    }

    EventLoop loop() {
        return loop;
    }

    /** Sends requests in order, from any thread. */
    void send(List<MasterRequest> requests) {
        if (loop.inEventLoop()) {
            sendOnLoop(requests, false);
        } else {
            loop.execute(() -> sendOnLoop(requests, false));
        }
    }

    /** @param probe whether this is a probe, the one request that goes to an ejected master */
    private void sendOnLoop(List<MasterRequest> requests, boolean probe) {
        if (closed) {
            fail(requests, "the backend is closed", false);
            return;
        }
        if (channel != null && !channel.isActive()) {
            lost(channel, "connection lost");
        }
        if (health.isOpen() && !probe) {
            fail(requests, "okuyama master " + address + " is ejected after " + health.failuresInARow()
                    + " failures in a row", false);
            return;
        }
        if (channel != null && !connecting) {
            write(requests);
            return;
        }
        waiting.addAll(requests);
        connect();
    }

    private void write(List<MasterRequest> requests) {
        int size = 0;
        for (MasterRequest request : requests) {
            size += request.line.length() + 1;
        }
        ByteBuf out = channel.alloc().ioBuffer(size);
        long deadline = System.nanoTime() + timeoutNanos;
        for (MasterRequest request : requests) {
            request.deadline = deadline;
            out.writeCharSequence(request.line, StandardCharsets.US_ASCII);
            out.writeByte('\n');
            pending.add(request);
        }
        channel.writeAndFlush(out, channel.voidPromise());
        if (timer == null) {
            timer = loop.schedule(this::checkTimeout, timeoutNanos, TimeUnit.NANOSECONDS);
        }
    }

    private void checkTimeout() {
        timer = null;
        MasterRequest oldest = pending.peek();
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
        bootstrap.connect(InetSocketAddress.createUnresolved(address.host(), address.port()))
                .addListener((ChannelFutureListener) future -> {
                    connecting = false;
                    if (!future.isSuccess()) {
                        failed("cannot connect: " + future.cause().getMessage());
                        failWaiting("cannot connect to okuyama master " + address + ": "
                                + future.cause().getMessage());
                        return;
                    }
                    if (closed) {
                        future.channel().close();
                        return;
                    }
                    channel = future.channel();
                    Channel connected = channel;
                    connected.closeFuture().addListener(ignored -> lost(connected, "connection lost"));
                    List<MasterRequest> ready = new ArrayList<>(waiting);
                    waiting.clear();
                    if (!ready.isEmpty()) {
                        write(ready);
                    }
                });
    }

    private void failWaiting(String why) {
        List<MasterRequest> failed = new ArrayList<>(waiting);
        waiting.clear();
        fail(failed, why, false);
    }

    /**
     * Gives up a connection: closes it and fails everything pending on it, all of that counting as one failure in a
     * row (the close that follows a timeout finds the connection no longer current and counts nothing).
     */
    private void lost(Channel gone, String why) {
        if (gone != channel) {
            return;
        }
        channel = null;
        gone.writeAndFlush(gone.alloc().buffer(CLOSE.length() + 1).writeBytes(
                (CLOSE + "\n").getBytes(StandardCharsets.US_ASCII))).addListener(ChannelFutureListener.CLOSE);
        if (timer != null) {
            timer.cancel(false);
            timer = null;
        }
        if (!pending.isEmpty()) {
            if (!closed) {
                failed(why + " with " + pending.size() + " requests pending");
            }
            List<MasterRequest> failed = new ArrayList<>(pending);
            pending.clear();
            fail(failed, "okuyama master " + address + ": " + why, true);
        }
    }

    private void failed(String why) {
        if (health.failed()) {
            LOG.warn("okuyama master {} ejected after {} failures in a row (last: {}); probing every {} ms",
                    address, health.failuresInARow(), why, health.retryMillis());
            if (health.startProbing()) {
                loop.schedule(this::probe, health.retryMillis(), TimeUnit.MILLISECONDS);
            }
        } else {
            LOG.debug("okuyama master {}: {}", address, why);
        }
    }

    /**
     * After an ejection: an initClient line through a fresh connection, the one request an ejected master gets;
     * only its answer ends the ejection. The next probe is scheduled once this one has failed, so probes never pile
     * up.
     */
    private void probe() {
        if (closed || !health.isOpen()) {
            endProbing();
            return;
        }
        MasterRequest probe = new MasterRequest("0", false);
        probe.probe = true;
        probe.reply.whenComplete((reply, error) -> {
            if (error == null || closed || !health.isOpen()) {
                endProbing();
            } else {
                LOG.debug("okuyama master {} still down: {}", address, error.getMessage());
                loop.schedule(this::probe, health.retryMillis(), TimeUnit.MILLISECONDS);
            }
        });
        sendOnLoop(List.of(probe), true);
    }

    private void endProbing() {
        if (health.probeEnded() && !closed) {
            loop.schedule(this::probe, health.retryMillis(), TimeUnit.MILLISECONDS);
        }
    }

    private void received(String line) {
        MasterRequest head = pending.poll();
        if (head == null) {
            LOG.warn("okuyama master {} sent a line nobody waits for; closing: {}", address, shortened(line));
            lost(channel, "a reply nobody waits for");
            return;
        }
        if (health.answered()) {
            LOG.info("okuyama master {} is back", address);
        }
        head.reply.complete(line);
        if (line.startsWith("-1,")) {
            // The master refused the line as malformed and closes the connection: nothing behind it is answered.
            lost(channel, "the master refused a request (" + shortened(line) + ")");
        }
    }

    private static String shortened(String line) {
        return line.length() <= 120 ? line : line.substring(0, 120) + "...";
    }

    private void fail(List<MasterRequest> requests, String why, boolean written) {
        for (MasterRequest request : requests) {
            if (request.probe) {
                request.reply.completeExceptionally(new MasterUnavailable(why));
            } else {
                failover.failed(request, why, written);
            }
        }
    }

    void close() {
        if (loop.isShuttingDown()) {
            return;
        }
        try {
            loop.execute(() -> {
                closed = true;
                if (channel != null) {
                    lost(channel, "the backend is closed");
                }
                failWaiting("the backend is closed");
            });
        } catch (RejectedExecutionException e) {
            // The loops are stopping: the connection goes with them.
        }
    }

    private final class ReplyHandler extends SimpleChannelInboundHandler<ByteBuf> {
        @Override
        protected void channelRead0(ChannelHandlerContext ctx, ByteBuf frame) {
            if (ctx.channel() != channel) {
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
