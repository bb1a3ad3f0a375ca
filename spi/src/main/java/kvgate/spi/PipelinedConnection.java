package kvgate.spi;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.util.concurrent.ScheduledFuture;
import java.net.SocketAddress;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * One pipelined connection from a network backend to one server, owned by one event loop of the gateway: what the
 * memcached and okuyama backends share, each adding its protocol (how a request is written, how a reply is matched
 * to it). Every field is confined to the loop; callers on other threads hand requests over with {@link #send}.
 *
 * <p>Requests are written back to back and wait in {@link #pending()} for their replies, oldest first. A request
 * without a reply within the timeout gives the connection up, with everything pending on it (the stream can no longer
 * be trusted). One timer watches the oldest pending request (replies come in order, so it is the first to run late),
 * instead of a timer per request.
 *
 * <p>A new connection may need steps of its own before it carries requests (a TLS handshake, an authentication):
 * {@link #prepare}. Requests wait for it as they wait for the connection; a failed preparation fails them and counts
 * as a failure, as a refused connection does.
 *
 * <p>Failures in a row (timeouts, refused or lost connections; a connection given up with all its pending requests is
 * one failure) up to the limit eject the server on every loop at once ({@link ServerHealth}): its requests fail at
 * once until a probe, one at a time every retry interval, is answered.
 *
 * @param <Q> the backend's request type
 */
public abstract class PipelinedConnection<Q extends PipelinedConnection.Request> {

    /** What the connection needs of every request it carries: its bytes, and the time its reply is due. */
    public abstract static class Request {
        private long deadline;

        /** Bytes {@link #encode} writes. */
        public abstract int encodedLength();

        /** Writes the request at the end of {@code out}. */
        public abstract void encode(ByteBuf out);

        /** When its reply is due, in {@link System#nanoTime} terms: set as it is written. */
        public final long deadline() {
            return deadline;
        }

        final void deadline(long nanos) {
            deadline = nanos;
        }
    }

    private final ServerHealth health;
    private final EventLoop loop;
    private final long timeoutMillis;
    private final long timeoutNanos;
    private final Bootstrap bootstrap;
    private final SocketAddress remote;
    private final int maxInFlight;
    private final ArrayDeque<Q> pending = new ArrayDeque<>();
    /** Requests behind the in-flight limit, written as replies come. */
    private final ArrayDeque<Q> queued = new ArrayDeque<>();
    private final List<Q> waiting = new ArrayList<>();
    private Channel channel;
    /** A connection is being made, or made and being prepared: requests wait in {@link #waiting}. */
    private boolean connecting;
    private boolean closed;
    private ScheduledFuture<?> timer;

    /** A connection that writes every request at once, however many wait for replies. */
    protected PipelinedConnection(ServerHealth health, EventLoop loop, long timeoutMillis,
                                  Class<? extends Channel> type, SocketAddress remote, boolean tcp) {
        this(health, loop, timeoutMillis, type, remote, tcp, Integer.MAX_VALUE);
    }

    /**
     * @param health the server's health, shared by its connections on every loop
     * @param type the socket type ({@link BackendContext#socketType})
     * @param remote where to connect: an unresolved host name is resolved anew by every connection
     * @param tcp whether the connection is TCP (Nagle is turned off), not a Unix domain socket
     * @param maxInFlight the most requests written and not yet answered; others wait their turn (1 for a server that
     *     answers a pipelined request late, as one that delays small replies with Nagle's algorithm does)
     */
    protected PipelinedConnection(ServerHealth health, EventLoop loop, long timeoutMillis,
                                  Class<? extends Channel> type, SocketAddress remote, boolean tcp,
                                  int maxInFlight) {
        if (maxInFlight < 1) {
            throw new IllegalArgumentException("at least one request in flight, not " + maxInFlight);
        }
        this.maxInFlight = maxInFlight;
        this.health = health;
        this.loop = loop;
        this.timeoutMillis = timeoutMillis;
        this.timeoutNanos = TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        this.remote = remote;
        this.bootstrap = new Bootstrap()
                .group(loop)
                .channel(type)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Math.min(Integer.MAX_VALUE, timeoutMillis))
                .handler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        pipeline(ch);
                    }
                });
        if (tcp) {
            bootstrap.option(ChannelOption.TCP_NODELAY, true);
        }
    }

    /** Adds the protocol's handlers to a new connection's pipeline; the last must hand replies to the subclass. */
    protected abstract void pipeline(Channel channel);

    /** A probe of an ejected server: a request any live server answers; {@code answered} completes with it. */
    protected abstract Q probe(CompletableFuture<Void> answered);

    /**
     * Ends requests that will get no reply: {@code written} ones reached the server (a change among them may have
     * taken effect), the others never left. Called on the loop.
     */
    protected abstract void fail(List<Q> requests, String why, boolean written);

    /**
     * The steps a new connection takes before it carries requests, which it may write with {@link #write}; the
     * stage fails with the reason when the connection cannot be used. None by default.
     */
    protected CompletionStage<Void> prepare(Channel connected) {
        return CompletableFuture.completedFuture(null);
    }

    /** Called for each request just before it is encoded (to number it, say). */
    protected void writing(Q request) {
    }

    public final EventLoop loop() {
        return loop;
    }

    public final ServerHealth health() {
        return health;
    }

    /** Whether the server is ejected now. */
    public final boolean ejected() {
        return health.ejected();
    }

    /** Probes sent to the server so far. */
    public final int probesSent() {
        return health.probesSent();
    }

    /** Requests written, queued behind the in-flight limit, or waiting for the connection; on the loop only. */
    public final int load() {
        return pending.size() + queued.size() + waiting.size();
    }

    /** The requests written and not yet answered, oldest first; on the loop only. */
    protected final ArrayDeque<Q> pending() {
        return pending;
    }

    /** The connection in use, or null; on the loop only. */
    protected final Channel channel() {
        return channel;
    }

    protected final boolean closed() {
        return closed;
    }

    /** Sends requests in order, from any thread. */
    public final void send(List<Q> requests) {
        if (loop.inEventLoop()) {
            sendOnLoop(requests, false);
        } else {
            loop.execute(() -> sendOnLoop(requests, false));
        }
    }

    /** @param probe whether this is a probe, the one request that goes to an ejected server */
    private void sendOnLoop(List<Q> requests, boolean probe) {
        if (closed) {
            fail(requests, "the backend is closed", false);
            return;
        }
        if (channel != null && !channel.isActive()) {
            // Dead, but its close handler has not run yet. Give it up now, before the ejection check (this may be
            // the failure that ejects): otherwise a new connection would take its place, the close handler would no
            // longer recognise it, and what was pending on it would stay queued in front of the new connection's
            // requests, matched to their replies.
            lost(channel, "connection lost");
        }
        if (health.ejected() && !probe) {
            fail(requests, health.name() + " is ejected after " + health.failuresInARow() + " failures in a row",
                    false);
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
     * Writes the requests as one buffer on the current connection. The flush may be consolidated with those of other
     * batches of the same round of the loop, by a handler the subclass adds.
     */
    protected final void write(List<Q> requests) {
        if (!queued.isEmpty() || pending.size() + requests.size() > maxInFlight) {
            queued.addAll(requests);
            writeQueued();
        } else {
            writeNow(requests);
        }
    }

    /** Writes what the in-flight limit lets through of the queued requests. */
    private void writeQueued() {
        List<Q> next = new ArrayList<>();
        while (!queued.isEmpty() && pending.size() + next.size() < maxInFlight) {
            next.add(queued.poll());
        }
        if (!next.isEmpty()) {
            writeNow(next);
        }
    }

    private void writeNow(List<Q> requests) {
        int size = 0;
        for (Q request : requests) {
            size += request.encodedLength();
        }
        ByteBuf out = channel.alloc().ioBuffer(size);
        long deadline = System.nanoTime() + timeoutNanos;
        for (Q request : requests) {
            writing(request);
            request.deadline(deadline);
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
        Q oldest = pending.peek();
        if (oldest == null || channel == null) {
            return;
        }
        long left = oldest.deadline() - System.nanoTime();
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
            if (!future.isSuccess()) {
                connecting = false;
                failed("cannot connect: " + future.cause().getMessage());
                failWaiting("cannot connect to " + health.name() + ": " + future.cause().getMessage());
                return;
            }
            Channel connected = future.channel();
            if (closed) {
                connecting = false;
                connected.close();
                return;
            }
            channel = connected;
            connected.closeFuture().addListener(ignored -> lost(connected, "connection lost"));
            prepare(connected).whenComplete((ignored, failure) -> {
                if (connected != channel) {
                    return; // given up meanwhile, its waiting requests with it
                }
                if (failure == null) {
                    ready();
                } else {
                    refused(connected, String.valueOf(failure.getMessage()));
                }
            });
        });
    }

    /** The connection carries requests now: those that waited for it go first. */
    private void ready() {
        connecting = false;
        List<Q> ready = new ArrayList<>(waiting);
        waiting.clear();
        if (!ready.isEmpty()) {
            write(ready);
        }
    }

    /**
     * The connection could not be prepared (a failed handshake, a refused authentication): it is closed, what waits
     * for it fails, and that counts as one failure in a row (its close then finds it no longer current).
     */
    private void refused(Channel connected, String why) {
        channel = null;
        connecting = false;
        connected.close();
        cancelTimer();
        failed(why);
        List<Q> written = new ArrayList<>(pending);
        pending.clear();
        fail(written, health.name() + ": " + why, true);
        failWaiting(health.name() + ": " + why);
    }

    private void failWaiting(String why) {
        List<Q> failed = new ArrayList<>(waiting);
        waiting.clear();
        fail(failed, why, false);
    }

    /**
     * Gives up a connection: closes it and fails everything pending on it, counting all of that as ONE failure in a
     * row. A timeout comes here before the close does, which then finds the connection no longer current and counts
     * nothing: one timed-out request, or one lost connection with many requests pending, must not count as several
     * failures toward the limit.
     */
    protected final void lost(Channel gone, String why) {
        if (gone != channel) {
            return;
        }
        channel = null;
        closing(gone);
        cancelTimer();
        boolean preparing = connecting;
        if (!closed && (preparing || !pending.isEmpty())) {
            failed(preparing ? why + " while the connection was prepared"
                    : why + " with " + pending.size() + " requests pending");
        }
        if (!pending.isEmpty()) {
            List<Q> failed = new ArrayList<>(pending);
            pending.clear();
            fail(failed, health.name() + ": " + why, true);
        }
        if (!queued.isEmpty()) {
            List<Q> unsent = new ArrayList<>(queued);
            queued.clear();
            fail(unsent, health.name() + ": " + why, false);
        }
        if (preparing) {
            connecting = false;
            failWaiting(health.name() + ": " + why + " while the connection was prepared");
        }
    }

    /** Closes a connection given up; a protocol with a goodbye of its own says it first. */
    protected void closing(Channel gone) {
        gone.close();
    }

    /**
     * A reply came from the server, its request taken from {@link #pending()}: the failures in a row end, and so does
     * an ejection; a request queued behind the in-flight limit takes its place.
     */
    protected final void answered() {
        health.answered();
        if (!queued.isEmpty() && channel != null && !connecting) {
            writeQueued();
        }
    }

    private void cancelTimer() {
        if (timer != null) {
            timer.cancel(false);
            timer = null;
        }
    }

    /** Counts one failure in a row; when that ejects the server, this connection runs the probes. */
    private void failed(String why) {
        if (health.failed(why)) {
            loop.schedule(this::probeServer, health.retryMillis(), TimeUnit.MILLISECONDS);
        }
    }

    /**
     * After an ejection: a probe through a fresh connection, the one request an ejected server gets. The server stays
     * ejected while the probe connects: other requests must not wait on its connection attempt, which for a host
     * that does not answer at all lasts until the timeout. Only the answer ends the ejection. The next probe is
     * scheduled only once this one has failed, so that probes never pile up however many failures the outage brings.
     */
    private void probeServer() {
        if (closed || !health.ejected()) {
            endProbing();
            return;
        }
        health.probeSent();
        CompletableFuture<Void> answered = new CompletableFuture<>();
        answered.whenComplete((ignored, error) -> { // completed on the loop, like every request
            if (error == null || closed || !health.ejected()) {
                endProbing();
            } else {
                loop.schedule(this::probeServer, health.retryMillis(), TimeUnit.MILLISECONDS);
            }
        });
        sendOnLoop(List.of(probe(answered)), true);
    }

    /** Ends this connection's probe cycle, or goes on with it when the server was ejected again meanwhile. */
    private void endProbing() {
        if (health.probeEnded() && !closed) {
            loop.schedule(this::probeServer, health.retryMillis(), TimeUnit.MILLISECONDS);
        }
    }

    /** Closes the connection and fails what waits for one; what is pending fails as the connection goes. */
    public final void close() {
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
}
