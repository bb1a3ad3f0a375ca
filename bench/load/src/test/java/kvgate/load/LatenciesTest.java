package kvgate.load;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** {@link Latencies}: a period's two histograms count the same replies, however the recording races the swaps. */
class LatenciesTest {
    private static final long HIGHEST = 100_000_000_000L;

    @Test
    void aPeriodHoldsWhatWasRecordedSinceTheLastSwapAndAResetDropsIt() {
        Latencies latencies = new Latencies(1, HIGHEST);
        latencies.record(5_000, 1_000);
        latencies.reset();
        latencies.record(9_000, 2_000);
        latencies.record(7_000, 7_000);
        Latencies.Period period = latencies.interval();
        assertEquals(2, period.fromIntended().getTotalCount());
        assertEquals(2, period.fromSend().getTotalCount());
        assertEquals(9_000, period.fromIntended().getMaxValue(), 9_000 / 1000.0);
        assertEquals(7_000, period.fromSend().getMaxValue(), 7_000 / 1000.0);
        // The copy handed out stays whole after later swaps reuse the histograms behind it.
        latencies.record(1, 1);
        Latencies.Period next = latencies.interval();
        latencies.interval();
        assertEquals(2, period.fromIntended().getTotalCount());
        assertEquals(1, next.fromSend().getTotalCount());
    }

    @Test
    void recordedWhileThePeriodsAreSwappedEachPeriodsTwoHistogramsCountTheSameReplies() throws Exception {
        for (int writers : new int[] {1, 2}) {
            Latencies latencies = new Latencies(writers, HIGHEST);
            AtomicBoolean stop = new AtomicBoolean();
            AtomicLong recorded = new AtomicLong();
            CountDownLatch started = new CountDownLatch(writers);
            List<Thread> threads = new ArrayList<>();
            for (int w = 0; w < writers; w++) {
                // Every reply's latency from its send is shorter than from its intended time, and the replies grow
                // slower as they go: a period given one reply's send latency without its intended one would show
                // a maximum from the send above the maximum from the intended time.
                Thread thread = new Thread(() -> {
                    started.countDown();
                    for (long i = 1; !stop.get(); i++) {
                        latencies.record(2 * i + 1, 2 * i);
                        recorded.incrementAndGet();
                    }
                });
                threads.add(thread);
                thread.start();
            }
            started.await();
            long counted = 0;
            for (int swap = 0; swap < 200; swap++) {
                Latencies.Period period = latencies.interval();
                long count = period.fromIntended().getTotalCount();
                assertEquals(count, period.fromSend().getTotalCount(), "swap " + swap + " with " + writers);
                if (count > 0) {
                    assertTrue(period.fromSend().getMaxValue() <= period.fromIntended().getMaxValue(),
                            "swap " + swap + " with " + writers);
                }
                counted += count;
            }
            stop.set(true);
            for (Thread thread : threads) {
                thread.join();
            }
            counted += latencies.interval().fromIntended().getTotalCount();
            assertEquals(recorded.get(), counted, "every reply lands in exactly one period");
            assertTrue(counted > 0);
        }
    }
}
