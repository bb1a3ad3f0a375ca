package kvgate.mpdb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.ArrayList;
import java.util.List;
import kvgate.mpdb.EchoWindow.Arrival;
import org.junit.jupiter.api.Test;

/** The ordering rules alone, without sockets or timers: what runs when, and what is dropped. */
class EchoWindowTest {
    private final EchoWindow<String> window = new EchoWindow<>(10);

    /** Runs everything that is due, finishing each at once; returns the tags run. */
    private List<Long> runDue() {
        List<Long> run = new ArrayList<>();
        EchoWindow.Turn<String> turn;
        while ((turn = window.take()) != null) {
            run.add(turn.echo());
            window.finished(turn, ("reply " + turn.echo()).getBytes());
        }
        return run;
    }

    private Arrival offer(long echo) {
        return window.offer(echo, "m" + echo, 10, (int) echo);
    }

    @Test
    void outOfOrderArrivalsRunInEchoOrder() {
        assertEquals(Arrival.ACCEPTED, offer(2));
        assertEquals(List.of(), runDue(), "2 waits for 1");
        assertEquals(1, window.gap());
        assertEquals(Arrival.ACCEPTED, offer(1));
        assertEquals(List.of(1L, 2L), runDue());
        offer(4);
        assertEquals(List.of(), runDue());
        offer(3);
        assertEquals(List.of(3L, 4L), runDue());
        assertEquals(0, window.gap());
    }

    @Test
    void onlyOneMessageRunsAtATime() {
        offer(1);
        offer(2);
        EchoWindow.Turn<String> first = window.take();
        assertEquals(1, first.echo());
        assertNull(window.take(), "2 waits until 1 has finished");
        assertEquals(0, window.gap(), "no gap while 1 runs");
        assertEquals(Arrival.DUPLICATE, offer(1), "a resend of the running message");
        window.finished(first, new byte[1]);
        assertEquals(2, window.take().echo());
    }

    @Test
    void skippingAGapRunsTheNextAndTheLateMessageAfterwards() {
        offer(1);
        runDue();
        offer(3);
        offer(5);
        assertEquals(2, window.gap());
        window.skipGap();
        assertEquals(List.of(3L), runDue());
        assertEquals(4, window.gap());
        window.skipGap();
        assertEquals(List.of(5L), runDue());
        assertEquals(Arrival.ACCEPTED, offer(2), "a skipped tag still runs when it comes");
        assertEquals(List.of(2L), runDue());
        assertEquals(Arrival.REPLAY, offer(2), "and only once");
    }

    @Test
    void theWindowHoldsTenTagsAheadOfTheLastOneRun() {
        offer(1);
        runDue();
        for (long echo = 3; echo <= 11; echo++) {
            assertEquals(Arrival.ACCEPTED, offer(echo), "tag " + echo);
        }
        assertEquals(Arrival.BEYOND_WINDOW, offer(12));
        offer(2);
        assertEquals(List.of(2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L, 10L, 11L), runDue());
        assertEquals(Arrival.ACCEPTED, offer(12));
    }

    @Test
    void repliesOfTheLastTenAreCachedOlderOnesAreStale() {
        for (long echo = 1; echo <= 20; echo++) {
            offer(echo);
            runDue();
        }
        assertEquals(Arrival.REPLAY, offer(11));
        assertEquals("reply 11", new String(window.cachedReply(11)));
        assertEquals(Arrival.STALE, offer(10));
    }

    @Test
    void tagOneAgainAfterItsReplyLeftTheCacheIsAResendWhenTheSameAndARestartWhenNot() {
        for (long echo = 1; echo <= 20; echo++) {
            offer(echo);
            runDue();
        }
        assertEquals(Arrival.STALE, offer(1), "the same first message: a late resend, never run twice");
        assertEquals(Arrival.ACCEPTED, offer(21), "and the order goes on where it was");
        assertEquals(List.of(21L), runDue());
        assertEquals(Arrival.ACCEPTED, window.offer(1, "rebooted", 10, 99));
        assertEquals(List.of(1L), runDue());
        assertEquals(Arrival.ACCEPTED, offer(2));
        assertEquals(List.of(2L), runDue());
    }

    @Test
    void anyTagStillCachedArrivingWithOtherContentIsARestart() {
        for (long echo = 1; echo <= 5; echo++) {
            offer(echo);
            runDue();
        }
        assertEquals(Arrival.REPLAY, offer(1), "a rebooted client's first message, the same as before");
        assertEquals(Arrival.ACCEPTED, window.offer(3, "new 3", 10, 33), "3 with new content: tags start over");
        assertEquals(List.of(), runDue(), "3 now waits for 1 and 2 of the new order");
        assertEquals(1, window.gap());
        assertEquals(Arrival.ACCEPTED, offer(1));
        assertEquals(Arrival.ACCEPTED, window.offer(2, "new 2", 10, 22));
        assertEquals(List.of(1L, 2L, 3L), runDue());
        assertEquals("reply 3", new String(window.cachedReply(3)));
    }

    @Test
    void anOrderBegunFurtherAlongTakesTagOneForARestart() {
        offer(500);
        runDue();
        assertEquals(Arrival.ACCEPTED, offer(1), "no first message to compare with: the client started over");
        assertEquals(List.of(1L), runDue());
    }

    @Test
    void tagOneWithTheSameContentIsAResendWithOtherContentARestart() {
        offer(1);
        runDue();
        assertEquals(Arrival.REPLAY, window.offer(1, "same", 10, 1));
        assertEquals(Arrival.ACCEPTED, window.offer(1, "other", 10, 99));
        assertEquals(List.of(1L), runDue());
    }

    @Test
    void aFirstMessageFarAlongStartsTheOrderThere() {
        assertEquals(Arrival.ACCEPTED, offer(500));
        assertEquals(List.of(500L), runDue());
        assertEquals(Arrival.ACCEPTED, offer(502));
        assertEquals(501, window.gap());
    }

    @Test
    void theLargestTagEndsTheOrderInsteadOfWrappingBelowZero() {
        // 2^63 - 1 is the largest tag a datagram can carry: once it has run, no tag lies ahead. Were the next tag
        // to wrap to -2^63, every smaller tag would count as ahead, and skipping the gap before one would list
        // every tag from -2^63 up, without end, on the listener's thread.
        assertEquals(Arrival.ACCEPTED, offer(Long.MAX_VALUE - 1));
        assertEquals(Arrival.ACCEPTED, offer(Long.MAX_VALUE));
        assertEquals(List.of(Long.MAX_VALUE - 1, Long.MAX_VALUE), runDue());
        assertEquals(Arrival.STALE, offer(5), "a smaller tag, not cached: stale");
        assertEquals(0, window.gap(), "nothing waits for a gap");
        assertEquals(Arrival.REPLAY, offer(Long.MAX_VALUE), "the last tag resent is answered from the cache");
        assertEquals(Arrival.ACCEPTED, offer(1), "tag 1 starts the order over");
        assertEquals(List.of(1L), runDue());
    }

    @Test
    void theWeightCountsWhatIsHeld() {
        int empty = window.weight();
        offer(2);
        offer(3);
        int buffered = window.weight();
        assertEquals(true, buffered >= empty + 20, buffered + " after buffering two 10-byte messages");
        offer(1);
        runDue();
        assertEquals(true, window.weight() < buffered + 3 * 20 + 3 * 64 + 1);
    }
}
