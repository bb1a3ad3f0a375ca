package kvgate.backend.local;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import kvgate.spi.Result;
import kvgate.spi.Status;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class GroupCommitTest {

    /**
     * A commit that the test lets through one round at a time, so it can observe acknowledgements while a commit
     * is still running.
     */
    private static final class GatedCommit implements GroupCommit.Commit {
        final AtomicInteger started = new AtomicInteger();
        final AtomicInteger finished = new AtomicInteger();
        final Semaphore gate = new Semaphore(0);
        volatile boolean fail;

        @Override
        public void run() throws Exception {
            started.incrementAndGet();
            gate.acquire();
            finished.incrementAndGet();
            if (fail) {
                throw new IOException("disk full");
            }
        }
    }

    private final List<GroupCommit> opened = new ArrayList<>();
    private final GatedCommit commit = new GatedCommit();

    private GroupCommit open(GroupCommit.Commit c) {
        GroupCommit groupCommit = new GroupCommit("test", c);
        opened.add(groupCommit);
        return groupCommit;
    }

    @AfterEach
    void closeAll() throws Exception {
        // Let any blocked round finish so close() cannot hang the suite.
        commit.gate.release(1000);
        for (GroupCommit groupCommit : opened) {
            groupCommit.close();
        }
    }

    private static void awaitTrue(java.util.function.BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + SECONDS.toNanos(5);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("condition not reached within 5 s");
            }
            Thread.sleep(2);
        }
    }

    private static Result get(CompletableFuture<Result> f) throws Exception {
        return f.get(5, SECONDS);
    }

    @Test
    void acknowledgementCompletesOnlyAfterTheCommitRan() throws Exception {
        GroupCommit groupCommit = open(commit);
        Result stored = new Result.Stored(7);
        CompletableFuture<Result> ack = groupCommit.afterCommit(stored).toCompletableFuture();
        AtomicInteger commitsSeenAtCompletion = new AtomicInteger(-1);
        CompletableFuture<Result> observed =
                ack.whenComplete((r, e) -> commitsSeenAtCompletion.set(commit.finished.get()));

        awaitTrue(() -> commit.started.get() == 1);
        Thread.sleep(50);
        assertFalse(ack.isDone(), "acknowledged while the commit was still running");

        commit.gate.release();
        assertEquals(stored, get(observed));
        assertEquals(1, commitsSeenAtCompletion.get());
    }

    @Test
    void acknowledgementWaitsForACommitThatStartedAfterIt() throws Exception {
        GroupCommit groupCommit = open(commit);
        CompletableFuture<Result> first = groupCommit.afterCommit(new Result.Stored(1)).toCompletableFuture();
        awaitTrue(() -> commit.started.get() == 1);

        // This write happened after round 1 began, so round 1 may not have included it.
        CompletableFuture<Result> second = groupCommit.afterCommit(new Result.Stored(2)).toCompletableFuture();
        commit.gate.release();
        assertEquals(new Result.Stored(1), get(first));
        assertFalse(second.isDone(), "released by a commit that started before the write");

        awaitTrue(() -> commit.started.get() == 2);
        assertFalse(second.isDone());
        commit.gate.release();
        assertEquals(new Result.Stored(2), get(second));
        assertEquals(2, commit.finished.get());
    }

    @Test
    void oneCommitReleasesEveryAcknowledgementWaitingForIt() throws Exception {
        GroupCommit groupCommit = open(commit);
        CompletableFuture<Result> blocker = groupCommit.afterCommit(Result.DONE).toCompletableFuture();
        awaitTrue(() -> commit.started.get() == 1);
        List<CompletableFuture<Result>> batch = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            batch.add(groupCommit.afterCommit(new Result.Stored(i)).toCompletableFuture());
        }
        commit.gate.release(2);
        get(blocker);
        for (int i = 0; i < 20; i++) {
            assertEquals(new Result.Stored(i), get(batch.get(i)));
        }
        assertEquals(2, commit.started.get(), "the waiting writes should share one commit");
    }

    @Test
    void failedCommitFailsEveryWaitingAcknowledgementWithBackendError() throws Exception {
        commit.fail = true;
        GroupCommit groupCommit = open(commit);
        CompletableFuture<Result> blocker = groupCommit.afterCommit(Result.DONE).toCompletableFuture();
        awaitTrue(() -> commit.started.get() == 1);
        List<CompletableFuture<Result>> waiting = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            waiting.add(groupCommit.afterCommit(new Result.Stored(i)).toCompletableFuture());
        }
        commit.gate.release(1000);

        waiting.add(blocker);
        for (CompletableFuture<Result> ack : waiting) {
            Result result = get(ack);
            Result.Failure failure = assertInstanceOf(Result.Failure.class, result);
            assertEquals(Status.BACKEND_ERROR, failure.status());
            assertTrue(failure.message().contains("disk full"), failure.message());
        }
    }

    @Test
    void committerKeepsWorkingAfterAFailedCommit() throws Exception {
        commit.fail = true;
        GroupCommit groupCommit = open(commit);
        commit.gate.release(1000);
        assertEquals(Status.BACKEND_ERROR, get(groupCommit.afterCommit(Result.DONE).toCompletableFuture()).status());

        commit.fail = false;
        assertEquals(new Result.Stored(3), get(groupCommit.afterCommit(new Result.Stored(3)).toCompletableFuture()));
    }

    @Test
    void anErrorInACommitFailsItsRoundAndTheCommitterGoesOn() throws Exception {
        AtomicInteger rounds = new AtomicInteger();
        GroupCommit groupCommit = open(() -> {
            if (rounds.incrementAndGet() == 1) {
                throw new OutOfMemoryError("no room for the chunk");
            }
        });
        Result failed = get(groupCommit.afterCommit(Result.DONE).toCompletableFuture());
        assertEquals(Status.BACKEND_ERROR, failed.status());
        assertTrue(((Result.Failure) failed).message().contains("no room for the chunk"), failed.toString());
        assertEquals(new Result.Stored(4), get(groupCommit.afterCommit(new Result.Stored(4)).toCompletableFuture()),
                "the next round is committed and acknowledged");
    }

    @Test
    void closeReleasesEverythingWaiting() throws Exception {
        GroupCommit groupCommit = new GroupCommit("test", commit);
        CompletableFuture<Result> inRound = groupCommit.afterCommit(new Result.Stored(1)).toCompletableFuture();
        awaitTrue(() -> commit.started.get() == 1);
        List<CompletableFuture<Result>> queued = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            queued.add(groupCommit.afterCommit(new Result.Stored(100 + i)).toCompletableFuture());
        }

        CompletableFuture<Void> closing = CompletableFuture.runAsync(() -> {
            try {
                groupCommit.close();
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        commit.gate.release(1000);
        closing.get(5, SECONDS);

        // close() returning means nothing may still be pending.
        assertTrue(inRound.isDone());
        assertEquals(new Result.Stored(1), inRound.getNow(null));
        for (int i = 0; i < 5; i++) {
            assertTrue(queued.get(i).isDone(), "still waiting after close: " + i);
            assertEquals(new Result.Stored(100 + i), queued.get(i).getNow(null));
        }
    }

    @Test
    void acknowledgementRequestedAfterCloseStillCompletes() throws Exception {
        AtomicInteger commits = new AtomicInteger();
        GroupCommit groupCommit = new GroupCommit("test", commits::incrementAndGet);
        groupCommit.close();
        int before = commits.get();

        CompletableFuture<Result> late = groupCommit.afterCommit(new Result.Stored(9)).toCompletableFuture();
        assertTrue(late.isDone(), "nobody is left to release an acknowledgement after close");
        assertEquals(new Result.Stored(9), late.getNow(null));
        assertEquals(before + 1, commits.get(), "the late write must still be committed before it is acknowledged");
    }

    @Test
    void closeWithNothingWaitingDoesNotCommit() throws Exception {
        AtomicBoolean committed = new AtomicBoolean();
        GroupCommit groupCommit = new GroupCommit("test", () -> committed.set(true));
        groupCommit.close();
        assertFalse(committed.get());
    }
}
