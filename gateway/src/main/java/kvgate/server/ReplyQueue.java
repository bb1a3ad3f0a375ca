package kvgate.server;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import java.util.ArrayDeque;
import java.util.List;

/**
 * The replies of one connection, written in request order whatever order the backend completes them in.
 *
 * <p>Each request reserves a slot as it is read; a slot is filled when its reply is known (or known to be silent),
 * and filled slots at the head are written. Writes made while a read burst is being processed are flushed once at
 * its end. Writes of later completions are flushed by a task queued on the event loop, which runs once the loop has
 * handled the I/O at hand: a backend's reply burst completes many requests at once, and they leave in one write
 * rather than one system call each. Reading pauses while {@code maxInFlight} requests await replies
 * or the socket's outbound buffer is full, so a client that sends without reading cannot make the gateway buffer
 * without bound.
 *
 * <p>Every method must be called on the connection's event loop.
 *
 * @param <R> the protocol's reply message
 */
public final class ReplyQueue<R> {

    /** A reply position in the order of requests. */
    public static final class Slot<R> {
        private List<R> replies;
        private boolean ready;
        private boolean closeAfter;
    }

    /** A buffer this full is written (not yet flushed) and a new one started, so one is never copied when large. */
    private static final int WRITE_AT = 64 * 1024;
    private static final int SMALLEST_BUFFER = 256;

    private final ChannelHandlerContext ctx;
    private final ReplyEncoder<R> encoder;
    private final int maxInFlight;
    private final ArrayDeque<Slot<R>> slots = new ArrayDeque<>();
    private boolean reading;
    private boolean unflushed;
    private boolean closing;
    private boolean paused;
    private boolean flushQueued;
    /** Encoded replies not yet written, or null. */
    private ByteBuf out;
    /** The bytes of the last buffer written: the first guess at the size of the next. */
    private int lastWritten = SMALLEST_BUFFER;
    private final Runnable queuedFlush = () -> {
        flushQueued = false;
        flushIfNeeded();
    };

    public ReplyQueue(ChannelHandlerContext ctx, ReplyEncoder<R> encoder, int maxInFlight) {
        this.ctx = ctx;
        this.encoder = encoder;
        this.maxInFlight = maxInFlight;
    }

    /** Whether the connection is closing (after a quit or a fatal error): further requests are to be ignored. */
    public boolean closing() {
        return closing;
    }

    /** Reserves the next reply position. */
    public Slot<R> reserve() {
        Slot<R> slot = new Slot<>();
        slots.add(slot);
        updateReading();
        return slot;
    }

    /**
     * Fills a slot with its replies (none for a silent success); with {@code closeAfter}, the connection closes once
     * they and all replies before them are written.
     */
    public void complete(Slot<R> slot, List<R> replies, boolean closeAfter) {
        if (closeAfter) {
            closing = true;
        }
        slot.replies = replies;
        slot.ready = true;
        slot.closeAfter = closeAfter;
        drain();
    }

    /** A read burst starts: hold flushes until {@link #readComplete()}. */
    public void readStarted() {
        reading = true;
    }

    /** The read burst is over: flush what it produced. */
    public void readComplete() {
        reading = false;
        flushIfNeeded();
    }

    /** Stops (or resumes) reading whatever the number of replies pending, while the connection waits for work. */
    public void pause(boolean pause) {
        paused = pause;
        updateReading();
    }

    /** The socket's outbound buffer crossed a watermark. */
    public void writabilityChanged() {
        updateReading();
    }

    /** The connection is gone: drop every pending reply. */
    public void closed() {
        closing = true;
        slots.clear();
        if (out != null) {
            out.release();
            out = null;
        }
    }

    private void drain() {
        while (!slots.isEmpty() && slots.peek().ready) {
            Slot<R> slot = slots.poll();
            for (R reply : slot.replies) {
                encode(reply);
                unflushed = true;
            }
            if (slot.closeAfter) {
                slots.clear();
                ByteBuf last = out == null ? Unpooled.EMPTY_BUFFER : out;
                out = null;
                ctx.writeAndFlush(last).addListener(ChannelFutureListener.CLOSE);
                unflushed = false;
                return;
            }
        }
        if (!reading && unflushed && !flushQueued) {
            flushQueued = true;
            ctx.channel().eventLoop().execute(queuedFlush);
        }
        updateReading();
    }

    private void encode(R reply) {
        int size = encoder.size(reply);
        if (out != null && out.writableBytes() < size && out.readableBytes() + size > WRITE_AT) {
            write();
        }
        if (out == null) {
            out = ctx.alloc().ioBuffer(Math.max(size, Math.min(lastWritten, WRITE_AT)));
        }
        encoder.encode(reply, out);
    }

    private void write() {
        lastWritten = Math.max(out.readableBytes(), SMALLEST_BUFFER);
        ctx.write(out, ctx.voidPromise());
        out = null;
    }

    private void flushIfNeeded() {
        if (unflushed) {
            unflushed = false;
            if (out != null) {
                write();
            }
            ctx.flush();
        }
    }

    private void updateReading() {
        var config = ctx.channel().config();
        boolean room = slots.size() < maxInFlight && ctx.channel().isWritable();
        if (closing || paused) {
            room = false;
        }
        if (config.isAutoRead() != room) {
            // Resume only with room for a good share of a burst, so reading does not toggle per reply.
            if (room && slots.size() > maxInFlight / 2) {
                return;
            }
            config.setAutoRead(room);
        }
    }
}
