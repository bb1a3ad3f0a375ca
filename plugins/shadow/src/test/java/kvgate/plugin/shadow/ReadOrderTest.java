package kvgate.plugin.shadow;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import kvgate.spi.Namespace;
import kvgate.spi.Operation;
import kvgate.spi.Result;
import org.junit.jupiter.api.Test;

/** The order of a key's mirrored reads behind its writes, and which reads a write raced. */
class ReadOrderTest {
    private static final ItemKey KEY = new ItemKey(Namespace.DEFAULT,
            ByteBuffer.wrap("k".getBytes(StandardCharsets.UTF_8)));
    private final ReadOrder order = new ReadOrder();

    private static Mirrored read() {
        return new Mirrored(new Operation.Get(Namespace.DEFAULT, "k".getBytes(StandardCharsets.UTF_8)),
                CompletableFuture.completedFuture(Result.DONE));
    }

    @Test
    void aReadWaitsForTheWritesOfItsKeyAtTheShadowAndGoesInOrder() {
        order.writePicked(KEY);
        order.writeAnswered(KEY); // acknowledged by the primary; its copy still on the way to the shadow
        Mirrored first = read();
        Mirrored second = read();
        ReadOrder.Ticket one = order.readPicked(KEY, first);
        ReadOrder.Ticket two = order.readPicked(KEY, second);
        assertTrue(one.waits && two.waits);
        List<Mirrored> released = order.writeDone(KEY);
        assertEquals(2, released.size());
        assertSame(first, released.get(0));
        assertSame(second, released.get(1));
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
    void aWriteStillAtThePrimaryOrPickedAfterTheReadRacesIt() {
        order.writePicked(KEY); // not yet answered by the primary
        ReadOrder.Ticket during = order.readPicked(KEY, read());
        order.writeAnswered(KEY);
        order.writeDone(KEY);
        assertTrue(order.readJudged(KEY, during), "picked while the primary had not answered the write");

        ReadOrder.Ticket before = order.readPicked(KEY, read());
        order.writePicked(KEY);
        assertTrue(order.readJudged(KEY, before), "a write picked after the read, before its comparison");
        order.writeAnswered(KEY);
        assertTrue(order.writeDone(KEY).isEmpty());
        assertEquals(0, order.keysTracked());
    }

    @Test
    void aFlushIsAWriteOfEveryKeyOfItsNamespace() {
        order.flushPicked(Namespace.DEFAULT);
        order.flushAnswered(Namespace.DEFAULT);
        order.writePicked(KEY); // a write of the key after the flush, still at the shadow when the flush is done
        order.writeAnswered(KEY);
        Mirrored read = read();
        ReadOrder.Ticket ticket = order.readPicked(KEY, read);
        assertTrue(ticket.waits);
        assertTrue(order.flushDone(Namespace.DEFAULT).isEmpty(), "still behind its key's write");
        List<Mirrored> released = order.writeDone(KEY);
        assertEquals(1, released.size());
        assertSame(read, released.get(0));
        assertFalse(order.readJudged(KEY, ticket), "both were acknowledged before the read");
        assertEquals(0, order.keysTracked());

        ReadOrder.Ticket before = order.readPicked(KEY, read());
        order.flushPicked(Namespace.DEFAULT);
        assertTrue(order.readJudged(KEY, before), "a flush picked after the read raced it");
        order.flushAnswered(Namespace.DEFAULT);
        assertTrue(order.flushDone(Namespace.DEFAULT).isEmpty());
        assertEquals(0, order.keysTracked());
    }
}
