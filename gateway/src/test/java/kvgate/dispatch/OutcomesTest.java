package kvgate.dispatch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import kvgate.spi.Result;
import kvgate.spi.ResultFuture;
import kvgate.spi.Status;
import org.junit.jupiter.api.Test;

/** {@link Outcomes#guarded}: a guard only where a stage could still fail. */
class OutcomesTest {

    @Test
    void aStageThatCannotFailOrHasItsResultIsHandedOnAsItIs() {
        ResultFuture pending = new ResultFuture();
        assertSame(pending, Outcomes.guarded(pending), "a ResultFuture needs no guard");
        assertSame(pending, Outcomes.guarded(Outcomes.guarded(pending)));
        CompletableFuture<Result> done = CompletableFuture.completedFuture(Result.DONE);
        assertSame(done, Outcomes.guarded(done), "a result already there needs none either");
    }

    @Test
    void aPlainPendingStageIsGuardedOnceAndItsFailureBecomesABackendError() {
        CompletableFuture<Result> plain = new CompletableFuture<>();
        CompletionStage<Result> guarded = Outcomes.guarded(plain);
        ResultFuture future = assertInstanceOf(ResultFuture.class, guarded);
        assertSame(guarded, Outcomes.guarded(guarded), "guarded at a leaf, not again at the root");
        assertFalse(future.isDone());
        plain.completeExceptionally(new IllegalStateException("connection reset"));
        Result result = future.join();
        assertEquals(Status.BACKEND_ERROR, result.status());
        assertEquals("connection reset", ((Result.Failure) result).message());
    }

    @Test
    void noStageIsABackendError() {
        Result result = Outcomes.guarded(null).toCompletableFuture().join();
        assertEquals(Status.BACKEND_ERROR, result.status());
    }
}
