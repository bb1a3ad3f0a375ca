package kvgate.backend.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lettuce.core.RedisCommandExecutionException;
import io.netty.channel.DefaultEventLoop;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import kvgate.spi.Namespace;
import kvgate.spi.Operation;
import kvgate.spi.Result;
import kvgate.spi.ResultFuture;
import kvgate.spi.Status;
import kvgate.spi.StoreMode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The order {@link SlotMigrations} keeps, on a real event loop with a sender that only notes what it is given (the
 * whole path, against a real cluster whose slot migrates, is the gateway's RedisReshardingTest).
 */
class SlotMigrationsTest {
    private static final Result REFUSAL = Result.failure(Status.TEMPORARY_FAILURE, "TRYAGAIN");
    private static final Result STORED = new Result.Stored(7);
    private static final RedisCommandExecutionException TRY_AGAIN = new RedisCommandExecutionException(
            "TRYAGAIN Multiple keys request during rehashing of slot");

    private final DefaultEventLoop loop = new DefaultEventLoop();
    /** What the migrations sent, in order. */
    private final List<Operation> sent = new CopyOnWriteArrayList<>();
    private final AtomicInteger flushes = new AtomicInteger();
    /** Whether each send is refused again at once, as Redis would while the slot still migrates. */
    private volatile boolean refuseAgain;
    private SlotMigrations migrations;

    private SlotMigrations migrations(long budgetMillis) {
        migrations = new SlotMigrations(loop, budgetMillis, new SlotMigrations.Sender() {
            @Override
            public void send(Operation operation, ResultFuture outcome, long since) {
                long number = migrations.started(operation);
                sent.add(operation);
                if (refuseAgain && SlotMigrations.retriable(operation, TRY_AGAIN)) { // only these are refused so
                    migrations.refused(operation, number, since, outcome, REFUSAL);
                }
            }

            @Override
            public void flush() {
                flushes.incrementAndGet();
            }
        });
        return migrations;
    }

    @AfterEach
    void stop() throws Exception {
        loop.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
    }

    private <T> T onLoop(Callable<T> task) throws Exception {
        return loop.submit(task).get(5, TimeUnit.SECONDS);
    }

    /** On the loop: starts {@code write}, then {@code followers} behind it, and Redis refuses the write. */
    private void refuse(SlotMigrations held, Operation write, ResultFuture outcome, long since,
                        Operation... followers) throws Exception {
        onLoop(() -> {
            long number = held.started(write);
            for (Operation follower : followers) {
                held.started(follower);
            }
            held.refused(write, number, since, outcome, REFUSAL);
            return null;
        });
    }

    private static Operation set(String key) {
        return new Operation.Store(Namespace.DEFAULT, key.getBytes(StandardCharsets.UTF_8), StoreMode.SET,
                new byte[]{1}, 0, 0, 0, false);
    }

    private static Operation acquire(String name, String owner) {
        return new Operation.Acquire(Namespace.DEFAULT, name.getBytes(StandardCharsets.UTF_8), 1, 5, owner);
    }

    private static Operation get(String key) {
        return new Operation.Get(Namespace.DEFAULT, key.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void onlyOneScriptOperationsRefusedWithTryAgainAreTriedAgain() {
        assertTrue(SlotMigrations.retriable(set("k"), TRY_AGAIN));
        assertTrue(SlotMigrations.retriable(new Operation.Release(Namespace.DEFAULT, new byte[]{'c'}, 1, "owner"),
                TRY_AGAIN));
        assertFalse(SlotMigrations.retriable(get("k"), TRY_AGAIN), "a get is one key's command, never refused so");
        assertFalse(SlotMigrations.retriable(set("k"), new RedisCommandExecutionException("BUSY script")));
        assertFalse(SlotMigrations.retriable(new Operation.Flush(Namespace.DEFAULT, 0), TRY_AGAIN));
        assertFalse(SlotMigrations.retriable(new Operation.Tag(Namespace.DEFAULT, new byte[]{'k'},
                List.of(new byte[]{'t'})), TRY_AGAIN), "a tag spans slots");
    }

    @Test
    void aRefusedWriteIsSentAgainAndOperationsOnItsItemWaitBehindIt() throws Exception {
        SlotMigrations held = migrations(5000);
        Operation write = set("k");
        ResultFuture outcome = new ResultFuture();
        ResultFuture[] queued = new ResultFuture[1];
        refuse(held, write, outcome, System.nanoTime());
        onLoop(() -> {
            queued[0] = held.queueIfHeld(get("k"));
            assertNull(held.queueIfHeld(get("other")), "another item goes at once");
            return null;
        });
        assertNotNull(queued[0], "a read of the held item waits");
        awaitSent(1);
        assertSame(write, sent.get(0), "the write was sent again");
        Thread.sleep(50);
        assertEquals(1, sent.size(), "the read waits for the write's result");
        outcome.complete(STORED);
        awaitSent(2);
        assertEquals("k", new String(((Operation.Get) sent.get(1)).key(), StandardCharsets.UTF_8));
        assertTrue(flushes.get() >= 2, "each send was flushed");
        assertNull(onLoop(() -> held.queueIfHeld(get("k"))), "the item is no longer held");
    }

    @Test
    void aRefusedWriteFollowedByAnotherOperationOnItsItemFails() throws Exception {
        SlotMigrations held = migrations(5000);
        Operation write = set("k");
        ResultFuture outcome = new ResultFuture();
        // Pipelined behind it, already on their way: the second on its item.
        refuse(held, write, outcome, System.nanoTime(), set("other"), get("k"));
        assertSame(REFUSAL, outcome.get(5, TimeUnit.SECONDS));
        Thread.sleep(50);
        assertTrue(sent.isEmpty(), "nothing was sent again");
    }

    @Test
    void aWriteWhoseNextOperationsAreOnOtherItemsIsTriedAgain() throws Exception {
        SlotMigrations held = migrations(5000);
        Operation write = set("k");
        ResultFuture outcome = new ResultFuture();
        refuse(held, write, outcome, System.nanoTime(), set("other"), get("k2"));
        awaitSent(1);
        assertSame(write, sent.get(0));
        assertFalse(outcome.isDone());
    }

    @Test
    void aWriteTooFarBackToTellIsNotTriedAgain() throws Exception {
        SlotMigrations held = migrations(5000);
        Operation write = set("k");
        ResultFuture outcome = new ResultFuture();
        Operation[] others = new Operation[SlotMigrations.RECENT];
        for (int i = 0; i < others.length; i++) {
            others[i] = set("other-" + i);
        }
        refuse(held, write, outcome, System.nanoTime(), others);
        assertSame(REFUSAL, outcome.get(5, TimeUnit.SECONDS));
    }

    @Test
    void aFlushGivesUpTheWaitingWritesAndSendsWhatQueuedBehindThemFirst() throws Exception {
        SlotMigrations held = migrations(5000);
        refuseAgain = true; // the write keeps waiting for its next retry
        Operation write = set("k");
        Operation read = get("k");
        ResultFuture outcome = new ResultFuture();
        refuse(held, write, outcome, System.nanoTime());
        awaitSent(2); // tried again, refused again
        ResultFuture queued = onLoop(() -> held.queueIfHeld(read));
        assertNotNull(queued);
        int before = onLoop(() -> {
            int was = sent.size();
            assertNull(held.queueIfHeld(new Operation.Flush(Namespace.DEFAULT, 0)), "the flush goes");
            // By the time the flush is started, what queued has gone ahead of it.
            assertEquals(was + 1, sent.size());
            assertSame(read, sent.get(was));
            return was;
        });
        assertSame(REFUSAL, outcome.get(5, TimeUnit.SECONDS));
        Thread.sleep(250);
        assertEquals(before + 1, sent.size(), "the given-up write was not sent again: " + sent);
    }

    @Test
    void aScanArrivingWhileARetryIsOnItsWaySendsWhatQueuedAndTheRetryIsNotRepeated() throws Exception {
        SlotMigrations held = migrations(5000);
        Operation write = set("k");
        Operation read = get("k");
        ResultFuture outcome = new ResultFuture();
        refuse(held, write, outcome, System.nanoTime());
        awaitSent(1); // the retry is on its way: nothing answers it yet
        onLoop(() -> {
            assertNotNull(held.queueIfHeld(read));
            assertNull(held.queueIfHeld(new Operation.Scan(Namespace.DEFAULT, 10)), "the scan goes");
            assertSame(read, sent.get(sent.size() - 1), "what queued went ahead of the scan");
            held.started(new Operation.Scan(Namespace.DEFAULT, 10));
            return null;
        });
        assertFalse(outcome.isDone(), "a retry on its way is not given up: its reply decides");
        // Refused again: the read and the scan followed it, so it is not sent a third time.
        onLoop(() -> {
            held.refused(write, 1, System.nanoTime(), outcome, REFUSAL); // the retry was number 1
            return null;
        });
        assertSame(REFUSAL, outcome.get(5, TimeUnit.SECONDS));
        Thread.sleep(100);
        assertEquals(2, sent.size(), "sent: " + sent);
    }

    @Test
    void anOperationThatWaitedAndIsRefusedInItsTurnIsTriedAgainItself() throws Exception {
        SlotMigrations held = migrations(5000);
        Operation first = set("k");
        Operation second = set("k");
        ResultFuture outcome = new ResultFuture();
        refuse(held, first, outcome, System.nanoTime());
        awaitSent(1);
        ResultFuture queued = onLoop(() -> held.queueIfHeld(second));
        assertNotNull(queued);
        refuseAgain = true; // the slot still migrates when the second goes
        outcome.complete(STORED);
        awaitSent(3); // the second, refused, then sent again
        assertSame(second, sent.get(1));
        assertSame(second, sent.get(2));
        assertFalse(queued.isDone());
        assertNotNull(onLoop(() -> held.queueIfHeld(get("k"))), "the item is held for the second now");
    }

    @Test
    void countersAndItemsAreHeldApartAndAReleaseOfAllGivesUpOnlyItsOwnersCounters() throws Exception {
        SlotMigrations held = migrations(5000);
        refuseAgain = true; // each keeps waiting for its next retry
        Operation write = set("c");
        Operation mine = acquire("c", "owner");
        Operation theirs = acquire("d", "other");
        ResultFuture written = new ResultFuture();
        ResultFuture acquired = new ResultFuture();
        ResultFuture theirsAcquired = new ResultFuture();
        refuse(held, write, written, System.nanoTime());
        refuse(held, mine, acquired, System.nanoTime());
        refuse(held, theirs, theirsAcquired, System.nanoTime());
        awaitSent(write, mine, theirs); // each tried again (and refused again): held apart, none given up
        assertFalse(acquired.isDone(), "the counter of the item's name is not held behind the item");
        onLoop(() -> {
            Operation releaseAll = new Operation.ReleaseAll(Namespace.DEFAULT, "owner");
            assertNull(held.queueIfHeld(releaseAll), "the release goes");
            held.started(releaseAll); // as the backend notes it
            assertNotNull(held.queueIfHeld(get("c")), "the item of the same name is still held");
            return null;
        });
        assertSame(REFUSAL, acquired.get(5, TimeUnit.SECONDS));
        Thread.sleep(150); // several more retries of the others
        assertFalse(written.isDone(), "a release of counters does not give up an item's write");
        assertFalse(theirsAcquired.isDone(), "nor another connection's acquisition");
    }

    @Test
    void aWriteRefusedAgainFailsOnceItsTimeIsUp() throws Exception {
        SlotMigrations held = migrations(200);
        refuseAgain = true;
        Operation write = set("k");
        ResultFuture outcome = new ResultFuture();
        long started = System.nanoTime();
        refuse(held, write, outcome, started);
        assertSame(REFUSAL, outcome.get(5, TimeUnit.SECONDS));
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
        assertTrue(millis >= 200, "gave up after " + millis + " ms");
        assertTrue(sent.size() >= 3, "tried again several times: " + sent.size());
        assertNull(onLoop(() -> held.queueIfHeld(get("k"))), "the item is no longer held");
    }

    @Test
    void noBudgetMeansNoRetry() throws Exception {
        SlotMigrations held = migrations(0);
        Operation write = set("k");
        ResultFuture outcome = new ResultFuture();
        refuse(held, write, outcome, System.nanoTime());
        assertSame(REFUSAL, outcome.get(5, TimeUnit.SECONDS));
        assertTrue(sent.isEmpty());
    }

    /** Waits until each of {@code operations} was sent again. */
    private void awaitSent(Operation... operations) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (!sent.containsAll(List.of(operations))) {
            assertTrue(System.nanoTime() < deadline, "sent: " + sent);
            Thread.sleep(5);
        }
    }

    private void awaitSent(int count) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (sent.size() < count) {
            assertTrue(System.nanoTime() < deadline, "sent " + sent.size() + " of " + count);
            Thread.sleep(5);
        }
    }
}
