package kvgate.net;

import io.micrometer.core.instrument.Timer;
import io.netty.channel.EventLoopGroup;
import io.netty.util.concurrent.EventExecutor;
import java.util.concurrent.TimeUnit;

/**
 * How late each network thread gets to the work due on it. A probe on every network thread runs once a period and
 * records how long after its due time it ran: the time the thread was held up by other work (a burst of other
 * connections' requests, a collection, a compilation, another process on its core), which every connection on that
 * thread waited through too. So the tail of the lag is the part of a client's latency tail that is the gateway's
 * thread's, not the network's or the backend's. A probe falls due where it falls, so it sees a hold-up of length d
 * with a chance of d over the period; over minutes, the lag's percentiles show how often and how long they are.
 */
public final class LoopLag implements AutoCloseable {
    private final Timer lag;
    private final long periodNanos;
    private volatile boolean closed;

    /** Starts probing each loop of {@code loops} every {@code periodMillis}, recording into {@code lag}. */
    public LoopLag(EventLoopGroup loops, Timer lag, long periodMillis) {
        this.lag = lag;
        this.periodNanos = TimeUnit.MILLISECONDS.toNanos(periodMillis);
        for (EventExecutor loop : loops) {
            probe(loop, System.nanoTime() + periodNanos);
        }
    }

    /** Runs on {@code loop} at {@code due}, records how late it ran, and falls due again a period later. */
    private void probe(EventExecutor loop, long due) {
        if (closed || loop.isShuttingDown()) {
            return;
        }
        loop.schedule(() -> {
            long now = System.nanoTime();
            lag.record(Math.max(0, now - due), TimeUnit.NANOSECONDS);
            probe(loop, now + periodNanos);
        }, due - System.nanoTime(), TimeUnit.NANOSECONDS);
    }

    /** Stops probing: each loop's probe ends at its next run. */
    @Override
    public void close() {
        closed = true;
    }
}
