package kvgate.net;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import java.util.Arrays;

/**
 * The replies of one connection, written in request order whatever order the backend completes them in.
 *
 * <p>Each request reserves a position as it is read, a sequence number; a position is filled with the request's
 * {@link Translation.Answer} when it is known, and filled positions at the head are written. The positions are a
 * ring of answers that grows with the requests pending, so a request costs no object of the queue's own. Writes
 * made while a read burst is being processed are flushed once at its end. Writes of later completions are flushed
 * by a task queued on the event loop, which runs once the loop has handled the I/O at hand: a backend's reply burst
 * completes many requests at once, and they leave in one write rather than one system call each. Reading pauses
 * while {@code maxInFlight} requests await replies or the socket's outbound buffer is full, so a client that sends
 * without reading cannot make the gateway buffer without bound.
 *
 * <p>Every method must be called on the connection's event loop.
 *
 * @param <R> the protocol's reply message
 */
public final class ReplyQueue<R> {

    /** A buffer this full is written (not yet flushed) and a new one started, so one is never copied when large. */
    private static final int WRITE_AT = 64 * 1024;
    private static final int SMALLEST_BUFFER = 256;
    private static final int INITIAL_RING = 16;

    private final ChannelHandlerContext ctx;
    private final ReplyEncoder<R> encoder;
    private final int maxInFlight;
    /** The answers of positions {@code head} to {@code next - 1}, at their sequence number modulo the length. */
    private Translation.Answer<?>[] ring = new Translation.Answer<?>[INITIAL_RING];
    /** The oldest position not yet written. */
    private long head;
    /** The position the next request reserves. */
    private long next;
    private boolean reading;
    private boolean unflushed;
    private boolean closing;
    private boolean paused;
    private boolean flushQueued;
    private boolean inputEnded;
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

    /** Whether every position reserved has been written: no reply is owed. */
    public boolean idle() {
        return head == next;
    }

    /**
     * The client shut its output down: there is nothing more to read, so reading is no longer paused or resumed (the
     * socket has left the event loop's interest for reads, and asking for one again fails).
     */
    public void endInput() {
        inputEnded = true;
    }

    /** Whether the client shut its output down ({@link #endInput}). */
    public boolean inputEnded() {
        return inputEnded;
    }

    /** Writes what is encoded and closes the connection once it is written; later requests are ignored. */
    public void closeAfterWrites() {
        closing = true;
        ByteBuf last = out == null ? Unpooled.EMPTY_BUFFER : out;
        out = null;
        unflushed = false;
        ctx.writeAndFlush(last).addListener(ChannelFutureListener.CLOSE);
    }

    /** Reserves the next reply position, whose sequence number {@link #complete} fills. */
    public long reserve() {
        if (next - head == ring.length) {
            grow();
        }
        long position = next++;
        updateReading();
        return position;
    }

    /**
     * Fills a position with its answer (no reply for a silent success); when the answer closes the connection, it
     * closes once its replies and all replies before them are written.
     */
    public void complete(long position, Translation.Answer<R> answer) {
        if (position < head || position >= next) {
            return; // the connection closed meanwhile, and its positions were dropped
        }
        if (answer.close()) {
            closing = true;
        }
        ring[index(position)] = answer;
        drain();
    }

    private int index(long position) {
        return (int) position & ring.length - 1;
    }

    /** Doubles the ring, keeping each pending position at its sequence number modulo the new length. */
    private void grow() {
        Translation.Answer<?>[] larger = new Translation.Answer<?>[ring.length * 2];
        for (long position = head; position < next; position++) {
            larger[(int) position & larger.length - 1] = ring[index(position)];
        }
        ring = larger;
    }

    private int pending() {
        return (int) (next - head);
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
        dropPending();
        if (out != null) {
            out.release();
            out = null;
        }
    }

    @SuppressWarnings("unchecked")
    private void drain() {
        while (head < next && ring[index(head)] != null) {
            Translation.Answer<R> answer = (Translation.Answer<R>) ring[index(head)];
            ring[index(head)] = null;
            head++;
            if (answer instanceof Translation.Reply<R> one) {
                encode(one.reply());
            } else {
                ((Translation.Replies<R>) answer).replies().forEach(this::encode);
            }
            if (answer.close()) {
                dropPending();
                closeAfterWrites();
                return;
            }
        }
        if (!reading && unflushed && !flushQueued) {
            flushQueued = true;
            ctx.channel().eventLoop().execute(queuedFlush);
        }
        updateReading();
    }

    /** Forgets every position not yet written: their answers, if they come, are dropped. */
    private void dropPending() {
        Arrays.fill(ring, null);
        head = next;
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
        unflushed = true;
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
        if (inputEnded) {
            return;
        }
        var config = ctx.channel().config();
        boolean room = pending() < maxInFlight && ctx.channel().isWritable();
        if (closing || paused) {
            room = false;
        }
        if (config.isAutoRead() != room) {
            // Resume only with room for a good share of a burst, so reading does not toggle per reply.
            if (room && pending() > maxInFlight / 2) {
                return;
            }
            config.setAutoRead(room);
        }
    }
}
