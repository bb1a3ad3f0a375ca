package kvgate.spi;

import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.function.Supplier;

/**
 * A result to come that cannot fail: it completes with a {@link Result} and nothing else. Completed with null, it
 * holds a {@link Status#BACKEND_ERROR} ("no result"); completed exceptionally, cancelled, timed out or obtruded an
 * exception, a {@link Status#BACKEND_ERROR} with the exception's message. So {@link #isCompletedExceptionally()}
 * is always false, and {@link #join()} never throws once it is done.
 *
 * <p>Why it exists: the gateway guards every stage a backend, route or filter returns, because a stage that fails
 * must still become a reply. For a plain stage that still runs, the guard is a stage of its own, one more
 * allocation and one more hop per operation when the result comes. A {@code ResultFuture} needs no guard, and the
 * gateway hands it on as it is: a backend that completes its operations later (after a network round trip) can
 * return one and save that hop. The stages derived from it ({@code thenApply} and the others) are plain
 * {@link CompletableFuture}s, which may fail, and are guarded anew.
 */
public class ResultFuture extends CompletableFuture<Result> {
    private static final Result NO_RESULT = Result.failure(Status.BACKEND_ERROR, "no result");

    /** An incomplete future. */
    public ResultFuture() {
    }

    /**
     * {@code stage} as a future that cannot fail: the stage itself when it is a {@code ResultFuture}, else one
     * completed with its result when it completes; a null stage is a "no result" backend error.
     */
    public static ResultFuture of(CompletionStage<Result> stage) {
        if (stage instanceof ResultFuture future) {
            return future;
        }
        ResultFuture future = new ResultFuture();
        if (stage == null) {
            future.complete(null);
        } else {
            stage.whenComplete(future::settle);
        }
        return future;
    }

    /**
     * Completes this future with {@code result}, or with {@code error} as a backend error when it is not null: the
     * shape of {@link CompletionStage#whenComplete}'s action, to pass another stage's outcome on.
     *
     * @return whether this call completed it
     */
    public boolean settle(Result result, Throwable error) {
        return error != null ? completeExceptionally(error) : complete(result);
    }

    /** @return whether this call completed it */
    @Override
    public boolean complete(Result result) {
        return super.complete(result == null ? NO_RESULT : result);
    }

    /** Completes it with a backend error made of {@code error}, not exceptionally. */
    @Override
    public boolean completeExceptionally(Throwable error) {
        return super.complete(Result.backendError(Objects.requireNonNull(error)));
    }

    /** Completes it with a backend error ("cancelled"); it is never {@linkplain #isCancelled() cancelled}. */
    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
        return super.complete(Result.failure(Status.BACKEND_ERROR, "cancelled"));
    }

    @Override
    public void obtrudeValue(Result result) {
        super.obtrudeValue(result == null ? NO_RESULT : result);
    }

    @Override
    public void obtrudeException(Throwable error) {
        super.obtrudeValue(Result.backendError(Objects.requireNonNull(error)));
    }

    /**
     * Completes it with what {@code supplier} returns or throws, run by {@code executor}. Overridden because
     * {@link CompletableFuture}'s own completes the future without going through {@link #complete}.
     */
    @Override
    public CompletableFuture<Result> completeAsync(Supplier<? extends Result> supplier, Executor executor) {
        Objects.requireNonNull(supplier);
        Objects.requireNonNull(executor);
        executor.execute(() -> {
            Result result;
            try {
                result = supplier.get();
            } catch (Throwable error) {
                completeExceptionally(error);
                return;
            }
            complete(result);
        });
        return this;
    }

    @Override
    public CompletableFuture<Result> completeAsync(Supplier<? extends Result> supplier) {
        return completeAsync(supplier, defaultExecutor());
    }
}
