package kvgate.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** {@link Route#withDeadline}: the answer or the late result, whichever comes first, with a real scheduler. */
class RouteDeadlineTest {
    private static final Result LATE = Result.failure(Status.TEMPORARY_FAILURE, "too late");

    private final ScheduledThreadPoolExecutor scheduler = new ScheduledThreadPoolExecutor(1);

    {
        scheduler.setRemoveOnCancelPolicy(true);
    }

    @AfterEach
    void stop() {
        scheduler.shutdownNow();
    }

    private static Result await(CompletionStage<Result> stage) throws Exception {
        return stage.toCompletableFuture().get(5, TimeUnit.SECONDS);
    }

    @Test
    void aChildThatNeverAnswersGivesTheLateResultAtTheDeadline() throws Exception {
        long started = System.nanoTime();
        Result result = await(Route.withDeadline(new CompletableFuture<>(), 50, LATE, scheduler));
        assertSame(LATE, result);
        assertTrue(System.nanoTime() - started >= TimeUnit.MILLISECONDS.toNanos(50), "not before the deadline");
    }

    @Test
    void anAnswerBeforeTheDeadlineWinsAndCancelsTheTimer() throws Exception {
        CompletableFuture<Result> answer = new CompletableFuture<>();
        CompletionStage<Result> first = Route.withDeadline(answer, 60_000, LATE, scheduler);
        assertEquals(1, scheduler.getQueue().size(), "the deadline is scheduled");
        answer.complete(Result.DONE);
        assertSame(Result.DONE, await(first));
        assertEquals(0, scheduler.getQueue().size(), "the deadline is cancelled once the answer came");
    }

    @Test
    void anExceptionalAnswerBecomesABackendError() throws Exception {
        CompletableFuture<Result> answer = new CompletableFuture<>();
        CompletionStage<Result> first = Route.withDeadline(answer, 60_000, LATE, scheduler);
        answer.completeExceptionally(new IllegalStateException("broken"));
        assertEquals(Status.BACKEND_ERROR, await(first).status());
    }

    @Test
    void noDeadlineAnAnswerAlreadyThereOrAStoppedSchedulerLeaveTheAnswerAsItIs() throws Exception {
        CompletableFuture<Result> pending = new CompletableFuture<>();
        assertSame(pending, Route.withDeadline(pending, 0, LATE, scheduler), "0: no deadline");
        CompletableFuture<Result> done = CompletableFuture.completedFuture(Result.DONE);
        assertSame(done, Route.withDeadline(done, 10, LATE, scheduler), "answered already");

        ScheduledExecutorService stopped = Executors.newSingleThreadScheduledExecutor();
        stopped.shutdown();
        CompletionStage<Result> unguarded = Route.withDeadline(pending, 10, LATE, stopped);
        assertSame(pending, unguarded, "a scheduler that takes no more tasks: the answer, without a deadline");
        assertFalse(unguarded.toCompletableFuture().isDone());
    }
}
