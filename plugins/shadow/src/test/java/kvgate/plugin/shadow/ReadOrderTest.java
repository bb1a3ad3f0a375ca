package kvgate.plugin.shadow;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import kvgate.spi.Namespace;
import kvgate.spi.Operation;
import kvgate.spi.Result;
import org.junit.jupiter.api.Test;

/** The order of a key's mirrored reads behind its writes, and which reads a write raced. */
class ReadOrderTest {
    private static final byte[] K = "k".getBytes(StandardCharsets.UTF_8);
    private static final ItemKey KEY = new ItemKey(Namespace.DEFAULT, ByteBuffer.wrap(K));
    private final ReadOrder order = new ReadOrder();

    private static Mirrored read() {
        return new Mirrored(new Operation.Get(Namespace.DEFAULT, K), CompletableFuture.completedFuture(Result.DONE));
    }

    private static Mirrored write() {
        return new Mirrored(new Operation.Delete(Namespace.DEFAULT, K, 0),
                CompletableFuture.completedFuture(Result.DONE));
    }

    /** A write picked (its place taken, whatever it waits for) and answered by the primary. */
    private Mirrored answeredWrite() {
        Mirrored write = write();
        order.writePicked(write);
        order.writeAnswered(KEY);
        return write;
    }

    private static Mirrored flush() {
        return new Mirrored(new Operation.Flush(Namespace.DEFAULT, 0), CompletableFuture.completedFuture(Result.DONE));
    }

    @Test
    void aReadWaitsForTheWritesOfItsKeyAtTheShadowAndGoesInOrder() {
        Mirrored write = write();
        assertFalse(order.writePicked(write), "nothing before it: it goes at once");
        order.writeAnswered(KEY); // acknowledged by the primary; its copy still on the way to the shadow
        Mirrored first = read();
        Mirrored second = read();
        ReadOrder.Ticket one = order.readPicked(KEY, first);
        ReadOrder.Ticket two = order.readPicked(KEY, second);
        assertTrue(one.waits && two.waits);
        assertEquals(List.of(first, second), order.writeDone(write));
        assertTrue(order.handedOn(KEY).isEmpty(), "sent: nothing more waits");
        assertFalse(order.readJudged(KEY, one), "the write was acknowledged before the read: no race");
        assertFalse(order.readJudged(KEY, two));
        assertEquals(0, order.keysTracked(), "nothing stays behind");
    }

    @Test
    void aReadOfAKeyWithNothingInFlightGoesAtOnce() {
        ReadOrder.Ticket ticket = order.readPicked(KEY, read());
        assertFalse(ticket.waits);
        assertFalse(order.readJudged(KEY, ticket));
        assertEquals(0, order.keysTracked());
    }

    @Test
    void aWriteAfterAHeldReadWaitsBehindItAndTheReadDoesNotWaitForIt() {
        Mirrored earlier = answeredWrite();
        Mirrored read = read();
        assertTrue(order.readPicked(KEY, read).waits);
        Mirrored later = write();
        assertTrue(order.writePicked(later), "held behind the read, which must reach the shadow first");
        order.writeAnswered(KEY);
        Mirrored next = read();
        assertTrue(order.readPicked(KEY, next).waits);
        // The earlier write done: the read goes, the later write right behind it, and the next read waits for that.
        assertEquals(List.of(read, later), order.writeDone(earlier));
        assertTrue(order.handedOn(KEY).isEmpty(), "the next read waits for the later write");
        assertEquals(List.of(next), order.writeDone(later));
        assertTrue(order.handedOn(KEY).isEmpty());
        assertTrue(order.readJudged(KEY, read.ticket()), "a write picked after it, before its comparison");
        assertFalse(order.readJudged(KEY, next.ticket()));
        assertEquals(0, order.keysTracked());
    }

    @Test
    void aWriteStillAtThePrimaryOrPickedAfterTheReadRacesIt() {
        Mirrored first = write();
        order.writePicked(first); // not yet answered by the primary
        ReadOrder.Ticket during = order.readPicked(KEY, read());
        order.writeAnswered(KEY);
        order.writeDone(first);
        order.handedOn(KEY);
        assertTrue(order.readJudged(KEY, during), "picked while the primary had not answered the write");

        ReadOrder.Ticket before = order.readPicked(KEY, read());
        Mirrored second = write();
        assertFalse(order.writePicked(second), "the read before it went at once: nothing to wait for");
        assertTrue(order.readJudged(KEY, before), "a write picked after the read, before its comparison");
        order.writeAnswered(KEY);
        assertTrue(order.writeDone(second).isEmpty());
        assertEquals(0, order.keysTracked());
    }

    @Test
    void aFlushIsAWriteOfEveryKeyOfItsNamespace() {
        Mirrored flush = flush();
        assertTrue(order.flushPicked(flush, new ArrayList<>()).isEmpty());
        order.flushAnswered(Namespace.DEFAULT);
        // a write of the key after the flush, still at the shadow when the flush is done
        Mirrored write = answeredWrite();
        Mirrored read = read();
        ReadOrder.Ticket ticket = order.readPicked(KEY, read);
        assertTrue(ticket.waits);
        assertTrue(order.flushDone(flush).isEmpty(), "still behind its key's write");
        assertEquals(List.of(read), order.writeDone(write));
        assertTrue(order.handedOn(KEY).isEmpty());
        assertFalse(order.readJudged(KEY, ticket), "both were acknowledged before the read");
        assertEquals(0, order.keysTracked());

        ReadOrder.Ticket before = order.readPicked(KEY, read());
        Mirrored later = flush();
        order.flushPicked(later, new ArrayList<>());
        assertTrue(order.readJudged(KEY, before), "a flush picked after the read raced it");
        order.flushAnswered(Namespace.DEFAULT);
        assertTrue(order.flushDone(later).isEmpty());
        assertEquals(0, order.keysTracked());
    }

    @Test
    void aReadHeldBehindAFlushGoesWhenTheFlushIsDone() {
        Mirrored flush = flush();
        order.flushPicked(flush, new ArrayList<>());
        order.flushAnswered(Namespace.DEFAULT);
        Mirrored read = read();
        assertTrue(order.readPicked(KEY, read).waits);
        assertEquals(List.of(read), order.flushDone(flush));
        assertTrue(order.handedOn(KEY).isEmpty());
        assertFalse(order.readJudged(KEY, read.ticket()));
        assertEquals(0, order.keysTracked());
    }

    @Test
    void aFlushReleasesWhatItsNamespaceHoldsToGoBeforeIt() {
        Mirrored write = answeredWrite();
        Mirrored read = read();
        order.readPicked(KEY, read);
        Mirrored held = write();
        assertTrue(order.writePicked(held));
        order.writeAnswered(KEY);
        Mirrored flush = flush();
        // The primary applied the held write before the flush: the shadow must get it before the flush too.
        List<Mirrored> overtaken = new ArrayList<>();
        assertEquals(List.of(read, held), order.flushPicked(flush, overtaken));
        assertTrue(overtaken.isEmpty());
        assertTrue(order.handedOn(KEY).isEmpty());
        order.flushAnswered(Namespace.DEFAULT);
        assertTrue(order.writeDone(write).isEmpty(), "nothing is left held");
        assertTrue(order.writeDone(held).isEmpty());
        assertTrue(order.flushDone(flush).isEmpty());
        assertTrue(order.readJudged(KEY, read.ticket()), "let go before the write it waited for: raced");
        assertEquals(0, order.keysTracked());
    }

    @Test
    void whatIsPickedWhileARunIsOnTheWayWaitsUntilItHasBeenSent() {
        Mirrored first = answeredWrite();
        Mirrored read = read();
        ReadOrder.Ticket ticket = order.readPicked(KEY, read);
        assertSame(ticket, read.ticket(), "the ticket is the read's before anyone can release it");
        assertEquals(List.of(read), order.writeDone(first));
        // Taken out of the lane, not yet sent: a write picked now must not overtake the read.
        Mirrored second = write();
        assertTrue(order.writePicked(second));
        order.writeAnswered(KEY);
        assertEquals(List.of(second), order.handedOn(KEY), "the read sent: the write goes next");
        assertTrue(order.handedOn(KEY).isEmpty());
        assertTrue(order.writeDone(second).isEmpty());
        assertTrue(order.readJudged(KEY, ticket));
        assertEquals(0, order.keysTracked());
    }

    @Test
    void aFlushLeavesWhatWaitsBehindARunAnotherThreadIsSendingAsOvertaken() {
        Mirrored first = answeredWrite();
        Mirrored read = read();
        order.readPicked(KEY, read);
        assertEquals(List.of(read), order.writeDone(first)); // on its way, from another thread
        Mirrored second = write();
        assertTrue(order.writePicked(second));
        order.writeAnswered(KEY);
        List<Mirrored> overtaken = new ArrayList<>();
        Mirrored flush = flush();
        assertTrue(order.flushPicked(flush, overtaken).isEmpty(), "it cannot go before the run on its way");
        assertEquals(List.of(second), overtaken);
        order.flushAnswered(Namespace.DEFAULT);
        assertTrue(order.handedOn(KEY).isEmpty(), "the overtaken write is the caller's to drop");
        assertTrue(order.writeDone(second).isEmpty());
        assertTrue(order.flushDone(flush).isEmpty());
        assertTrue(order.readJudged(KEY, read.ticket()));
        assertEquals(0, order.keysTracked());
    }
}
