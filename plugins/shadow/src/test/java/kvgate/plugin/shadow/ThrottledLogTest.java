package kvgate.plugin.shadow;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

class ThrottledLogTest {

    @Test
    void atMostOneLinePerInterval() {
        AtomicLong now = new AtomicLong(1_000);
        ThrottledLog log = new ThrottledLog(LoggerFactory.getLogger(ThrottledLogTest.class), 1, TimeUnit.SECONDS,
                now::get);
        AtomicInteger built = new AtomicInteger();
        int written = 0;
        for (int i = 0; i < 100; i++) {
            written += log.warn(() -> "line " + built.incrementAndGet()) ? 1 : 0;
            now.addAndGet(TimeUnit.MILLISECONDS.toNanos(25)); // 100 warnings over 2.5 s
        }
        assertEquals(3, written);
        assertEquals(3, built.get(), "lines held back are never even built");
    }
}
