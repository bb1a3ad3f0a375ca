package kvgate.load;

import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.WriterReaderPhaser;

/**
 * The two latencies of each reply, from its intended time and from its send, which the event loops record and the
 * main thread takes a period at a time. Both histograms are swapped under one phaser, as HdrHistogram's recorders
 * swap one, so that a period's two histograms count exactly the same replies: with a recorder each, a reply landing
 * between the two swaps was counted in one period by one histogram and in the next by the other, and a report could
 * show a p99.9 from the send above the p99.9 from the intended time, which no single reply can have.
 */
final class Latencies {
    /** A period's histograms: {@code fromIntended} counts from each request's intended time, {@code fromSend} from
     * when it actually left. */
    record Period(Histogram fromIntended, Histogram fromSend) {
    }

    private final WriterReaderPhaser phaser = new WriterReaderPhaser();
    private final boolean concurrent;
    private volatile Period active;
    private Period inactive;

    /**
     * For {@code writers} event loops. One writer records with plain stores; several need the concurrent histogram's
     * atomic adds (which were 4% of the generator's CPU, so they are not paid where one writer needs none).
     */
    Latencies(int writers, long highest) {
        this.concurrent = writers > 1;
        this.active = period(highest);
        this.inactive = period(highest);
    }

    private Period period(long highest) {
        return concurrent
                ? new Period(new ConcurrentHistogram(1, highest, 3), new ConcurrentHistogram(1, highest, 3))
                : new Period(new Histogram(1, highest, 3), new Histogram(1, highest, 3));
    }

    /** Records one reply's two latencies, in nanoseconds, into the same period. */
    void record(long fromIntended, long fromSend) {
        long phase = phaser.writerCriticalSectionEnter();
        try {
            Period period = active;
            period.fromIntended().recordValue(fromIntended);
            period.fromSend().recordValue(fromSend);
        } finally {
            phaser.writerCriticalSectionExit(phase);
        }
    }

    /** Starts a new period, dropping what was recorded. */
    void reset() {
        swap(false);
    }

    /** Ends the period: copies of what it recorded since the last reset or interval, and starts the next. */
    Period interval() {
        return swap(true);
    }

    /** Swaps the periods under the phaser; copies the one ended when {@code keep}, before anyone may reuse it. */
    private Period swap(boolean keep) {
        phaser.readerLock();
        try {
            Period next = inactive;
            next.fromIntended().reset();
            next.fromSend().reset();
            Period ended = active;
            active = next;
            inactive = ended;
            phaser.flipPhase();
            return keep ? new Period(ended.fromIntended().copy(), ended.fromSend().copy()) : null;
        } finally {
            phaser.readerUnlock();
        }
    }
}
