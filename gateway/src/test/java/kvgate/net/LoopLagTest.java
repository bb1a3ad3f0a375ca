package kvgate.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The probe of the network threads' lag, on real event loops: a thread held up shows as lag, and closing stops it. */
class LoopLagTest {
    @Test
    void aLoopHeldUpShowsItsHoldUpAsLagAndProbingStopsWhenClosed() throws Exception {
        EventLoopGroup loops = new MultiThreadIoEventLoopGroup(2, NioIoHandler.newFactory());
        Timer timer = Timer.builder("lag").register(new SimpleMeterRegistry());
        try {
            LoopLag lag = new LoopLag(loops, timer, 5);
            waitFor(() -> timer.count() >= 20, "probes on both loops");
            // Hold one loop up for 120 ms: the probe due meanwhile runs at least about that late.
            loops.next().submit(() -> sleep(120)).sync();
            long held = timer.count();
            waitFor(() -> timer.count() > held + 4, "probes after the hold-up");
            assertTrue(timer.max(TimeUnit.MILLISECONDS) >= 100, "the hold-up as lag: "
                    + timer.max(TimeUnit.MILLISECONDS) + " ms");
            lag.close();
            Thread.sleep(300); // each loop's probe ends at its next run, due 5 ms after its last
            long stopped = timer.count();
            Thread.sleep(300);
            assertEquals(stopped, timer.count(), "no probe after close");
        } finally {
            loops.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }

    private static void waitFor(java.util.function.BooleanSupplier condition, String what) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, "timed out waiting for " + what);
            Thread.sleep(5);
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
