package kvgate.net;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The refusals of one cause (a connection over a limit, a line too long to read): each is counted in a meter, and
 * logged at most once an interval with how many there were since the line before, so a flood of them is a few
 * lines a minute rather than one per refusal. The first refusal is logged at once.
 */
public final class RefusalLog {
    private static final Logger LOG = LoggerFactory.getLogger(RefusalLog.class);
    /** The shortest time between two lines of one cause. */
    public static final long INTERVAL_SECONDS = 10;

    private final String what;
    private final Runnable counted;
    private final Consumer<String> sink;
    private final LongSupplier nanos;
    private final long intervalNanos;
    private final AtomicLong unlogged = new AtomicLong();
    /** When the next line may be written, on {@link #nanos}' clock. */
    private final AtomicLong nextLine;

    /**
     * @param what what was done, for the line: "closing memcached connections over max_connections (4096)"
     * @param counted counts one refusal in the meters
     */
    public RefusalLog(String what, Runnable counted) {
        this(what, counted, LOG::warn, System::nanoTime, TimeUnit.SECONDS.toNanos(INTERVAL_SECONDS));
    }

    /** As above, for what the operator must act on: logged as errors. */
    public static RefusalLog errors(String what, Runnable counted) {
        return new RefusalLog(what, counted, LOG::error, System::nanoTime, TimeUnit.SECONDS.toNanos(INTERVAL_SECONDS));
    }

    /** As above, writing to {@code sink} on {@code nanos}' clock at most once {@code intervalNanos}. */
    RefusalLog(String what, Runnable counted, Consumer<String> sink, LongSupplier nanos, long intervalNanos) {
        this.what = what;
        this.counted = counted;
        this.sink = sink;
        this.nanos = nanos;
        this.intervalNanos = intervalNanos;
        this.nextLine = new AtomicLong(nanos.getAsLong());
    }

    /** Counts a refusal, and logs it with those before it when the interval since the last line is over. */
    public void refused(Object lastFrom) {
        counted.run();
        unlogged.incrementAndGet();
        long now = nanos.getAsLong();
        long next = nextLine.get();
        if (now - next >= 0 && nextLine.compareAndSet(next, now + intervalNanos)) {
            long count = unlogged.getAndSet(0);
            sink.accept(what + ": " + (count == 1 ? "one, from " + lastFrom
                    : count + " since the last such line, the last from " + lastFrom));
        }
    }
}
