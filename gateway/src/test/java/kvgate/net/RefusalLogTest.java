package kvgate.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** A flood of refusals is counted one by one and logged a line an interval, each line with its count. */
class RefusalLogTest {

    @Test
    void aFloodIsALineAnIntervalWithItsCountAndEveryRefusalIsCounted() {
        List<String> lines = new ArrayList<>();
        AtomicLong clock = new AtomicLong(1_000);
        AtomicInteger counted = new AtomicInteger();
        RefusalLog log = new RefusalLog("closing connections over max_connections (2)", counted::incrementAndGet,
                lines::add, clock::get, 10_000);
        log.refused("/10.0.0.1:1");
        assertEquals(List.of("closing connections over max_connections (2): one, from /10.0.0.1:1"), lines,
                "the first refusal is logged at once");
        for (int i = 2; i <= 5000; i++) {
            clock.addAndGet(3); // 5,000 refusals in 15,000 ns: the interval passes once
            log.refused("/10.0.0.1:" + i);
        }
        assertEquals(5000, counted.get(), "every refusal is counted");
        assertEquals(2, lines.size(), lines.toString());
        assertTrue(lines.get(1).startsWith("closing connections over max_connections (2): 3334 since the last such "
                + "line, the last from /10.0.0.1:3335"), lines.get(1));
        clock.addAndGet(10_000);
        log.refused("/10.0.0.2:9");
        assertEquals(3, lines.size());
        assertTrue(lines.get(2).contains(": 1666 since the last such line, the last from /10.0.0.2:9"),
                "the refusals held back are in the next line's count: " + lines.get(2));
    }
}
