package kvgate.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** {@link ResultFuture}: every way its work can end, and each ends with a result; nothing outside can fail it. */
class ResultFutureTest {
    private static final Result HIT = new Result.Value(new Item(new byte[] {1}, 0, 7, Item.NEVER));

    private static Result.Failure backendError(ResultFuture future) throws Exception {
        Result result = future.get(5, TimeUnit.SECONDS);
        assertEquals(Status.BACKEND_ERROR, result.status());
        return (Result.Failure) result;
    }

    @Test
    void aResultIsKeptAsItIs() {
        ResultFuture future = new ResultFuture();
        assertNull(future.now());
        assertFalse(future.isDone());
        assertTrue(future.complete(HIT));
        assertSame(HIT, future.join());
        assertSame(HIT, future.now());
        assertFalse(future.complete(Result.DONE), "completed once only");
        assertSame(HIT, future.join());
    }

    @Test
    void noResultIsABackendError() throws Exception {
        ResultFuture future = new ResultFuture();
        assertTrue(future.complete(null));
        assertEquals("no result", backendError(future).message());
    }

    @Test
    void aFailureIsABackendErrorWithItsMessage() throws Exception {
        ResultFuture future = new ResultFuture();
        assertTrue(future.fail(new IllegalStateException("connection reset")));
        assertEquals("connection reset", backendError(future).message());
        ResultFuture nameless = new ResultFuture();
        nameless.fail(new IllegalStateException());
        assertEquals("IllegalStateException", backendError(nameless).message());
        assertThrows(NullPointerException.class, () -> new ResultFuture().fail(null));
    }

    @Test
    void itsCompletableFutureIsACopyThatCannotFailOrCancelIt() throws Exception {
        ResultFuture future = new ResultFuture();
        CompletableFuture<Result> copy = future.toCompletableFuture();
        assertTrue(copy.completeExceptionally(new IllegalStateException("from outside")));
        assertTrue(future.toCompletableFuture().cancel(true));
        copy.obtrudeException(new IllegalStateException("forced"));
        assertFalse(future.isDone(), "whatever is done to a copy, this one waits for its own result");
        future.complete(HIT);
        assertSame(HIT, future.join());
        assertSame(HIT, future.toCompletableFuture().join(), "a copy made after completes as it did");
        CompletableFuture<Result> early = new ResultFuture().toCompletableFuture();
        assertFalse(early.isDone());
    }

    @Test
    void settlePassesAStagesOutcomeOn() throws Exception {
        ResultFuture value = new ResultFuture();
        assertTrue(value.settle(HIT, null));
        assertSame(HIT, value.join());
        ResultFuture failed = new ResultFuture();
        assertTrue(failed.settle(null, new CompletionException(new IllegalStateException("down"))));
        assertTrue(backendError(failed).message().contains("down"));
    }

    @Test
    void ofHandsAResultFutureOnAsItIsAndGuardsAnyOtherStage() throws Exception {
        ResultFuture own = new ResultFuture();
        assertSame(own, ResultFuture.of(own));
        assertEquals("no result", backendError(ResultFuture.of(null)).message());
        CompletableFuture<Result> plain = new CompletableFuture<>();
        ResultFuture guarded = ResultFuture.of(plain);
        assertNotSame(plain, guarded);
        assertFalse(guarded.isDone(), "completes when the stage does");
        plain.completeExceptionally(new IllegalStateException("late failure"));
        assertEquals("late failure", backendError(guarded).message());
        CompletableFuture<Result> empty = new CompletableFuture<>();
        ResultFuture guardedEmpty = ResultFuture.of(empty);
        empty.complete(null);
        assertEquals("no result", backendError(guardedEmpty).message());
        CompletableFuture<Result> cancelled = new CompletableFuture<>();
        ResultFuture guardedCancelled = ResultFuture.of(cancelled);
        cancelled.cancel(true);
        assertEquals(Status.BACKEND_ERROR, guardedCancelled.join().status());
    }

    @Test
    void derivedStagesArePlainAndMayFail() {
        ResultFuture future = new ResultFuture();
        CompletionStage<Result> derived = future.thenApply(result -> {
            throw new IllegalStateException("derived failure");
        });
        assertFalse(derived instanceof ResultFuture, "a derived stage makes no promise");
        future.complete(HIT);
        CompletionException thrown = assertThrows(CompletionException.class,
                () -> derived.toCompletableFuture().join());
        assertInstanceOf(IllegalStateException.class, thrown.getCause());
    }
}
