package kvgate.net;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import java.util.List;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A frame decoder that can drop the rest of a frame without buffering it: bytes to skip are discarded as they
 * arrive, so a client sending a long body the protocol refuses costs no memory. Each protocol's decoder extends it
 * and decodes one frame per call of {@link #decodeFrame}.
 *
 * <p>With a {@link RequestDeadline}, a request must also arrive whole in time: from the read that brings its first
 * byte (or ends the request before it) to its last. A connection still in the middle of one when the deadline
 * passes is closed, without a reply, however steadily its bytes trickle in.
 *
 * <p>With a {@link ReadBudget}, what a partial request holds counts against the gateway's budget, and when the
 * budget sheds the connection it is answered with {@link #shedFrame} (its protocol's "out of memory") and closed.
 */
public abstract class SkippingFrameDecoder extends ByteToMessageDecoder {
    /** Bytes still to skip, as they arrive. */
    private long skipping;
    private ReadLimits limits = ReadLimits.NONE;
    /** What this connection's partial request counts in the budget now; the budget may take it back. */
    final AtomicLong accounted = new AtomicLong();
    /** When this connection last brought bytes of a partial request ({@link System#nanoTime}). */
    private volatile long lastProgress;
    /** Shed by the budget: what still arrives is dropped until the connection closes. */
    private boolean shedding;
    private ChannelHandlerContext context;
    /** Told of each request completed, where the listener closes idle connections; else null. */
    private IdleCloser idle;
    /** Counts and logs what the decoder refuses (a frame over its limit); null when the protocol counts nothing. */
    private RefusalLog refusals;
    /**
     * When the request now arriving began ({@link System#nanoTime}, at the end of the read that brought its first
     * bytes), or -1 when none is partly read.
     */
    private long partialSince = -1;
    /** Whether a request ended in this read, so that bytes left after it begin another. */
    private boolean requestEnded;
    private ScheduledFuture<?> check;

    /** Sets the deadline and the budget a request is read within; call before the decoder is in a pipeline. */
    public final SkippingFrameDecoder limits(ReadLimits limits) {
        this.limits = limits;
        return this;
    }

    /** Sets where the decoder's refusals are counted and logged; call before the decoder is in a pipeline. */
    public final SkippingFrameDecoder refusals(RefusalLog refusals) {
        this.refusals = refusals;
        return this;
    }

    /** Counts and logs a refusal of what this connection sent. */
    protected final void refused(ChannelHandlerContext ctx) {
        if (refusals != null) {
            refusals.refused(ctx.channel().remoteAddress());
        }
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) throws Exception {
        context = ctx;
        idle = ctx.pipeline().get(IdleCloser.class);
        super.handlerAdded(ctx);
    }

    @Override
    protected final void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        if (shedding) {
            in.skipBytes(in.readableBytes());
            return;
        }
        if (skipping > 0) {
            int now = (int) Math.min(skipping, in.readableBytes());
            in.skipBytes(now);
            skipping -= now;
            if (skipping > 0) {
                return;
            }
        }
        int before = out.size();
        decodeFrame(ctx, in, out);
        // No clock read per request: once a read burst, channelReadComplete tells the idle timer and starts the next
        // request's time if bytes are left.
        requestEnded |= out.size() > before;
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) throws Exception {
        boolean ended = requestEnded;
        requestEnded = false;
        if (ended && idle != null) {
            idle.active();
        }
        if (limits.deadline().nanos() > 0) {
            watch(ctx, ended);
        }
        if (limits.budget().enabled()) {
            long holding = shedding || actualReadableBytes() == 0 ? 0 : internalBuffer().capacity();
            if (holding > 0) {
                lastProgress = System.nanoTime();
            }
            limits.budget().account(this, holding);
        }
        super.channelReadComplete(ctx);
    }

    /** A read that found no memory closes this connection, logged as an error, rather than reaching the protocol. */
    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) throws Exception {
        for (Throwable t = cause; t != null; t = t.getCause()) {
            if (t instanceof OutOfMemoryError && limits.outOfMemory() != null) {
                limits.outOfMemory().refused(ctx.channel().remoteAddress());
                ctx.close();
                return;
            }
        }
        super.exceptionCaught(ctx, cause);
    }

    /** When this connection's partial request last grew, for the budget to shed the longest-waiting first. */
    long lastProgress() {
        return lastProgress;
    }

    /**
     * Called by the budget on any thread: answers the partial request with the protocol's error, on the connection's
     * own thread, drops the rest, and closes the connection once the answer is written (at the latest a second
     * later).
     */
    void shed() {
        ChannelHandlerContext ctx = context;
        if (ctx == null) {
            return;
        }
        ctx.executor().execute(() -> {
            if (shedding || !ctx.channel().isActive()) {
                return;
            }
            shedding = true;
            ByteBuf held = internalBuffer();
            Object answer = held.isReadable() ? shedFrame(held) : null;
            held.skipBytes(held.readableBytes());
            skipping = 0;
            limits.shed().refused(ctx.channel().remoteAddress());
            if (answer == null) {
                ctx.close();
                return;
            }
            ctx.fireChannelRead(answer);
            ctx.fireChannelReadComplete();
            ctx.executor().schedule(() -> ctx.close(), 1, TimeUnit.SECONDS);
        });
    }

    /**
     * The frame that answers a partial request shed for the budget with the protocol's own "out of memory" and
     * closes the connection, made from the bytes of it held; null to close without an answer.
     */
    protected Object shedFrame(ByteBuf held) {
        return null;
    }

    @Override
    public void handlerRemoved0(ChannelHandlerContext ctx) throws Exception {
        if (check != null) {
            check.cancel(false);
            check = null;
        }
        limits.budget().account(this, 0);
        super.handlerRemoved0(ctx);
    }

    /** After a read: starts the clock on a request left partly read, or stops it when none is. */
    private void watch(ChannelHandlerContext ctx, boolean ended) {
        if (!midRequest()) {
            partialSince = -1;
            if (check != null) {
                check.cancel(false);
                check = null;
            }
            return;
        }
        if (partialSince < 0 || ended) {
            partialSince = System.nanoTime(); // a request began in this read
        }
        if (check == null) {
            schedule(ctx, partialSince + limits.deadline().nanos() - System.nanoTime());
        }
    }

    private void schedule(ChannelHandlerContext ctx, long delayNanos) {
        check = ctx.executor().schedule(() -> expire(ctx), Math.max(0, delayNanos), TimeUnit.NANOSECONDS);
    }

    /** The check falls due: a request still partly read since longer than the deadline closes the connection. */
    private void expire(ChannelHandlerContext ctx) {
        check = null;
        if (partialSince < 0 || !ctx.channel().isActive()) {
            return;
        }
        long left = partialSince + limits.deadline().nanos() - System.nanoTime();
        if (left > 0) {
            schedule(ctx, left); // a request ended meanwhile and the next began: its own time
            return;
        }
        limits.deadline().refusals().refused(ctx.channel().remoteAddress());
        ctx.close();
    }

    /** Whether a request is partly read: bytes of one held, or the rest of one to skip or discard. */
    protected boolean midRequest() {
        return skipping > 0 || actualReadableBytes() > 0;
    }

    /** Decodes at most one frame starting at the reader index, or returns to wait for more bytes. */
    protected abstract void decodeFrame(ChannelHandlerContext ctx, ByteBuf in, List<Object> out);

    /** Consumes the next {@code length} bytes: those already here now, the rest as they arrive. */
    protected final void skip(ByteBuf in, long length) {
        int now = (int) Math.min(length, in.readableBytes());
        in.skipBytes(now);
        skipping = length - now;
    }
}
