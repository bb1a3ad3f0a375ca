package kvgate.load;

import io.netty.channel.Channel;
import io.netty.channel.EventLoop;

/**
 * One simulated client (a TCP connection, or a UDP socket for MPDB), driven on its event loop: it sends what its
 * mode asks for while its pipeline has room, and hands every reply's outcome to the run. The transport, and how
 * requests in flight are matched with replies, are the subclass's.
 */
abstract class Client {
    private enum Mode { IDLE, SETUP, FILL, CLOSED_LOOP, OPEN_LOOP, STOPPED, DEAD }

    protected final LoadRun run;
    protected final int index;
    /** The client's socket, once connected (or bound). */
    protected Channel channel;
    private Mode mode = Mode.IDLE;
    private int preambleStep;
    private long nextFill;
    private long fillStride;
    private long fillEnd;
    /** Intended send times of requests due but not sent yet for lack of room (open loop). */
    private final LongRing backlog = new LongRing();
    private int inFlight;
    private boolean dirty;
    private Runnable whenDone;

    Client(LoadRun run, int index) {
        this.run = run;
        this.index = index;
    }

    final void attach(Channel connected) {
        this.channel = connected;
    }

    final EventLoop loop() {
        return channel.eventLoop();
    }

    /** Whether the pipeline takes another request now. */
    abstract boolean room();

    abstract int preambleSteps();

    /** The senders: {@code now} is the clock of this pump, from which the request's latency and timeout count. */
    abstract void sendPreamble(int step, long now);

    abstract void sendFill(long key, long now);

    /** As the others, but the latency counts from {@code start}: the request's intended time, in open loop. */
    abstract void sendNext(long start, long now);

    /** Sends what was written since the last flush. */
    abstract void flush();

    /** Gives up requests unanswered for too long (and resends, where the protocol does). */
    abstract void expire(long now);

    /** Closes the transport and drops what is in flight without counting it. */
    abstract void close();

    // --- what to send: called on the client's event loop ---

    /** Sends the preamble, one request at a time; {@code done} runs once it is answered (or the client died). */
    final void setup(Runnable done) {
        start(Mode.SETUP, done);
    }

    /** Stores keys {@code first}, {@code first + stride}, ... below {@code end}; then runs {@code done}. */
    final void fill(long first, long stride, long end, Runnable done) {
        nextFill = first;
        fillStride = stride;
        fillEnd = end;
        start(Mode.FILL, done);
    }

    /** Keeps the pipeline full of the mix until stopped. */
    final void loadClosedLoop() {
        start(Mode.CLOSED_LOOP, null);
    }

    /** Sends a request of the mix for each {@link #offer} until stopped. */
    final void loadOpenLoop() {
        start(Mode.OPEN_LOOP, null);
    }

    final boolean takesOffers() {
        return mode == Mode.OPEN_LOOP;
    }

    /**
     * A request intended to leave at {@code intended} (System.nanoTime), sent when the pipeline has room; {@code now}
     * is the caller's clock.
     */
    final void offer(long intended, long now) {
        if (mode == Mode.OPEN_LOOP) {
            backlog.add(intended);
            pump(now);
        }
    }

    /** The intended time of the oldest request due and not yet sent (open loop); Long.MAX_VALUE when none waits. */
    final long oldestUnsent() {
        return backlog.isEmpty() ? Long.MAX_VALUE : backlog.peek();
    }

    /** Sends nothing more; returns how many requests were due but never sent. */
    final int stop() {
        int unsent = backlog.size();
        backlog.clear();
        if (mode != Mode.DEAD) {
            mode = Mode.STOPPED;
        }
        return unsent;
    }

    final int inFlight() {
        return inFlight;
    }

    final boolean alive() {
        return mode != Mode.DEAD;
    }

    private void start(Mode next, Runnable done) {
        if (mode == Mode.DEAD) {
            if (done != null) {
                done.run();
            }
            return;
        }
        mode = next;
        whenDone = done;
        pump(System.nanoTime());
        flushIfDirty();
        finishIfDone();
    }

    /**
     * Writes requests while the mode has some to send and the pipeline has room; flushing is left to the caller.
     * {@code now} is the caller's one clock reading for all of them, as they leave in one flush: a reading per
     * request or reply was a twentieth of the generator's CPU at half a million requests a second.
     */
    final void pump(long now) {
        while (room()) {
            switch (mode) {
                case SETUP -> {
                    if (inFlight > 0 || preambleStep >= preambleSteps()) {
                        return;
                    }
                    sendPreamble(preambleStep++, now);
                }
                case FILL -> {
                    if (nextFill >= fillEnd) {
                        return;
                    }
                    sendFill(nextFill, now);
                    nextFill += fillStride;
                }
                case CLOSED_LOOP -> sendNext(now, now);
                case OPEN_LOOP -> {
                    if (backlog.isEmpty()) {
                        return;
                    }
                    sendNext(backlog.poll(), now);
                }
                default -> {
                    return;
                }
            }
            inFlight++;
            dirty = true;
        }
    }

    final void flushIfDirty() {
        if (dirty) {
            dirty = false;
            flush();
        }
    }

    // --- what came back: called by the subclass on the event loop ---

    /**
     * The reply to a request whose latency counts from {@code start}, sent at {@code sent} (later than {@code start}
     * when the generator got to it late, or its pipeline was full), read at {@code now}: the time of the read that
     * brought it, so that the generator's work on the replies before it in that read is not counted as latency.
     */
    final void completed(long start, long sent, long now, Outcome outcome, String problem) {
        inFlight--;
        if (mode == Mode.SETUP && !outcome.answered()) {
            run.fail("connection " + index + ": the preamble was refused: " + problem);
            die();
            return;
        }
        if (mode != Mode.SETUP) {
            run.record(start, sent, now, outcome, problem);
        }
        pump(now);
        finishIfDone();
    }

    /** The transport failed or requests timed out: what was in flight is lost and the client stops for good. */
    final void lost(boolean timeout, String problem) {
        run.lost(inFlight, timeout, "connection " + index + ": " + problem);
        if (mode == Mode.SETUP) {
            run.fail("connection " + index + " failed during its preamble: " + problem);
        }
        die();
    }

    /** A request given up without closing the transport (a datagram): it counts as a timeout. */
    final void timedOut(String problem) {
        inFlight--;
        run.lost(1, true, "connection " + index + ": " + problem);
        if (mode == Mode.SETUP) {
            run.fail("connection " + index + ": no reply to its preamble");
            die();
            return;
        }
        pump(System.nanoTime());
        finishIfDone();
    }

    private void die() {
        inFlight = 0;
        backlog.clear();
        mode = Mode.DEAD;
        close();
        Runnable done = whenDone;
        whenDone = null;
        if (done != null) {
            done.run();
        }
    }

    private void finishIfDone() {
        boolean finished = switch (mode) {
            case SETUP -> preambleStep >= preambleSteps() && inFlight == 0;
            case FILL -> nextFill >= fillEnd && inFlight == 0;
            default -> false;
        };
        if (finished) {
            mode = Mode.IDLE;
            Runnable done = whenDone;
            whenDone = null;
            if (done != null) {
                done.run();
            }
        }
    }
}
