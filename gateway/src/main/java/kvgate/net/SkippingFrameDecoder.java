package kvgate.net;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import java.util.List;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * A frame decoder that can drop the rest of a frame without buffering it: bytes to skip are discarded as they
 * arrive, so a client sending a long body the protocol refuses costs no memory. Each protocol's decoder extends it
 * and decodes one frame per call of {@link #decodeFrame}.
 *
 * <p>With a {@link RequestDeadline}, a request must also arrive whole in time: from the read that brings its first
 * byte (or ends the request before it) to its last. A connection still in the middle of one when the deadline
 * passes is closed, without a reply, however steadily its bytes trickle in.
 */
public abstract class SkippingFrameDecoder extends ByteToMessageDecoder {
    /** Bytes still to skip, as they arrive. */
    private long skipping;
    private RequestDeadline deadline = RequestDeadline.NONE;
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

    /** Sets the deadline a request must arrive within; call before the decoder is in a pipeline. */
    public final SkippingFrameDecoder deadline(RequestDeadline deadline) {
        this.deadline = deadline;
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
    protected final void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
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
        // No clock read per request: watch, once a read, starts the next request's time if bytes are left.
        requestEnded |= out.size() > before;
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) throws Exception {
        if (deadline.nanos() > 0) {
            watch(ctx);
        }
        super.channelReadComplete(ctx);
    }

    @Override
    public void handlerRemoved0(ChannelHandlerContext ctx) throws Exception {
        if (check != null) {
            check.cancel(false);
            check = null;
        }
        super.handlerRemoved0(ctx);
    }

    /** After a read: starts the clock on a request left partly read, or stops it when none is. */
    private void watch(ChannelHandlerContext ctx) {
        boolean ended = requestEnded;
        requestEnded = false;
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
            schedule(ctx, partialSince + deadline.nanos() - System.nanoTime());
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
        long left = partialSince + deadline.nanos() - System.nanoTime();
        if (left > 0) {
            schedule(ctx, left); // a request ended meanwhile and the next began: its own time
            return;
        }
        deadline.refusals().refused(ctx.channel().remoteAddress());
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
