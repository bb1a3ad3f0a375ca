package kvgate.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** {@link ResultFuture}: every way a {@link CompletableFuture} can end, and each ends with a result. */
class ResultFutureTest {
    private static final Result HIT = new Result.Value(new Item(new byte[] {1}, 0, 7, Item.NEVER));

    private final ExecutorService executor = Executors.newSingleThreadExecutor();

    @AfterEach
    void stop() {
        executor.shutdownNow();
    }

    private static Result.Failure backendError(ResultFuture future) throws Exception {
        Result result = future.get(5, TimeUnit.SECONDS);
        assertFalse(future.isCompletedExceptionally());
        assertFalse(future.isCancelled());
        assertEquals(Status.BACKEND_ERROR, result.status());
        return (Result.Failure) result;
    }

    @Test
    void aResultIsKeptAsItIs() {
        ResultFuture future = new ResultFuture();
        assertTrue(future.complete(HIT));
        assertSame(HIT, future.join());
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
    void anExceptionIsABackendErrorWithItsMessage() throws Exception {
        ResultFuture future = new ResultFuture();
        assertTrue(future.completeExceptionally(new IllegalStateException("connection reset")));
        assertEquals("connection reset", backendError(future).message());
        ResultFuture nameless = new ResultFuture();
        nameless.completeExceptionally(new IllegalStateException());
        assertEquals("IllegalStateException", backendError(nameless).message());
        assertThrows(NullPointerException.class, () -> new ResultFuture().completeExceptionally(null));
    }

    @Test
    void aCancelIsABackendErrorAndNotACancellation() throws Exception {
        ResultFuture future = new ResultFuture();
        assertTrue(future.cancel(true));
        assertEquals("cancelled", backendError(future).message());
        assertFalse(future.cancel(true), "already done");
        ResultFuture done = new ResultFuture();
        done.complete(HIT);
        assertFalse(done.cancel(false));
        assertSame(HIT, done.join());
    }

    @Test
    void whatIsObtrudedIsAResultToo() throws Exception {
        ResultFuture future = new ResultFuture();
        future.complete(HIT);
        future.obtrudeException(new IllegalStateException("forced"));
        assertEquals("forced", backendError(future).message());
        future.obtrudeValue(null);
        assertEquals("no result", backendError(future).message());
        future.obtrudeValue(Result.DONE);
        assertSame(Result.DONE, future.join());
    }

    @Test
    void completeAsyncGoesThroughTheSameRules() throws Exception {
        ResultFuture thrown = new ResultFuture();
        assertSame(thrown, thrown.completeAsync(() -> {
            throw new IllegalArgumentException("supplier failed");
        }, executor));
        assertEquals("supplier failed", backendError(thrown).message());
        ResultFuture empty = new ResultFuture();
        empty.completeAsync(() -> null, executor);
        assertEquals("no result", backendError(empty).message());
        ResultFuture value = new ResultFuture();
        value.completeAsync(() -> HIT);
        assertSame(HIT, value.get(5, TimeUnit.SECONDS));
    }

    @Test
    void aTimeoutIsABackendError() throws Exception {
        ResultFuture late = new ResultFuture();
        late.orTimeout(20, TimeUnit.MILLISECONDS);
        assertEquals("TimeoutException", backendError(late).message());
        ResultFuture nothing = new ResultFuture();
        nothing.completeOnTimeout(null, 20, TimeUnit.MILLISECONDS);
        assertEquals("no result", backendError(nothing).message());
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
