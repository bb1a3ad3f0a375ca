package kvgate.spi;

import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BiConsumer;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * A result to come that cannot fail: it completes with a {@link Result} and nothing else. Completed with null, it
 * holds a {@link Status#BACKEND_ERROR} ("no result"); {@linkplain #fail failed} with an exception, a
 * {@link Status#BACKEND_ERROR} with the exception's message. It is a {@link CompletionStage}, not a
 * {@link CompletableFuture}: nothing outside can complete it exceptionally or cancel it, so the promise holds.
 *
 * <p>Why it exists: the gateway guards every stage a backend, route or filter returns, because a stage that fails
 * must still become a reply. For a plain stage that still runs, the guard is a stage of its own, one more
 * allocation and one more hop per operation when the result comes. A {@code ResultFuture} needs no guard, and the
 * gateway hands it on as it is: a backend that completes its operations later (after a network round trip) can
 * return one and save that hop. The stages derived from it ({@code thenApply} and the others) are plain stages,
 * which may fail, and are guarded anew; {@link #toCompletableFuture()} gives a copy, whose completion by others does
 * not touch this one.
 */
public class ResultFuture implements CompletionStage<Result> {
    private static final Result NO_RESULT = Result.failure(Status.BACKEND_ERROR, "no result");

    /** Completed only by this class, and only normally. */
    private final CompletableFuture<Result> future = new CompletableFuture<>();

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

    /** @return whether this call completed it (null: a "no result" backend error) */
    public boolean complete(Result result) {
        return future.complete(result == null ? NO_RESULT : result);
    }

    /** Completes it with a backend error made of {@code error}: what a failure of the work behind it comes to. */
    public boolean fail(Throwable error) {
        return future.complete(Result.backendError(Objects.requireNonNull(error)));
    }

    /**
     * Completes this future with {@code result}, or with {@code error} as a backend error when it is not null: the
     * shape of {@link CompletionStage#whenComplete}'s action, to pass another stage's outcome on.
     *
     * @return whether this call completed it
     */
    public boolean settle(Result result, Throwable error) {
        return error != null ? fail(error) : complete(result);
    }

    public boolean isDone() {
        return future.isDone();
    }

    /**
     * Whether {@code stage} has completed, in whatever way: for a route node that answers at once what has come, and
     * waits only for what has not. Unlike {@code stage.toCompletableFuture().isDone()}, it makes no copy of a
     * {@code ResultFuture}.
     */
    public static boolean isDone(CompletionStage<?> stage) {
        return stage instanceof ResultFuture future ? future.isDone() : stage.toCompletableFuture().isDone();
    }

    /** The result, if it has come; null if not yet. */
    public Result now() {
        return future.getNow(null);
    }

    /** Waits for the result, which never is an exception. */
    public Result join() {
        return future.join();
    }

    /** Waits at most {@code timeout} for the result. */
    public Result get(long timeout, TimeUnit unit) throws InterruptedException, TimeoutException {
        try {
            return future.get(timeout, unit);
        } catch (ExecutionException e) {
            throw new IllegalStateException("a ResultFuture never fails", e);
        }
    }

    /** A copy: it completes as this one does, and completing or cancelling it leaves this one as it is. */
    @Override
    public CompletableFuture<Result> toCompletableFuture() {
        return future.copy();
    }

    @Override
    public String toString() {
        return "ResultFuture" + (isDone() ? "[" + now() + "]" : "[incomplete]");
    }

    // The stages derived from it: the inner future's, plain stages.

    @Override
    public <U> CompletionStage<U> thenApply(Function<? super Result, ? extends U> fn) {
        return future.thenApply(fn);
    }

    @Override
    public <U> CompletionStage<U> thenApplyAsync(Function<? super Result, ? extends U> fn) {
        return future.thenApplyAsync(fn);
    }

    @Override
    public <U> CompletionStage<U> thenApplyAsync(Function<? super Result, ? extends U> fn, Executor executor) {
        return future.thenApplyAsync(fn, executor);
    }

    @Override
    public CompletionStage<Void> thenAccept(Consumer<? super Result> action) {
        return future.thenAccept(action);
    }

    @Override
    public CompletionStage<Void> thenAcceptAsync(Consumer<? super Result> action) {
        return future.thenAcceptAsync(action);
    }

    @Override
    public CompletionStage<Void> thenAcceptAsync(Consumer<? super Result> action, Executor executor) {
        return future.thenAcceptAsync(action, executor);
    }

    @Override
    public CompletionStage<Void> thenRun(Runnable action) {
        return future.thenRun(action);
    }

    @Override
    public CompletionStage<Void> thenRunAsync(Runnable action) {
        return future.thenRunAsync(action);
    }

    @Override
    public CompletionStage<Void> thenRunAsync(Runnable action, Executor executor) {
        return future.thenRunAsync(action, executor);
    }

    @Override
    public <U, V> CompletionStage<V> thenCombine(CompletionStage<? extends U> other,
                                                 BiFunction<? super Result, ? super U, ? extends V> fn) {
        return future.thenCombine(other, fn);
    }

    @Override
    public <U, V> CompletionStage<V> thenCombineAsync(CompletionStage<? extends U> other,
                                                      BiFunction<? super Result, ? super U, ? extends V> fn) {
        return future.thenCombineAsync(other, fn);
    }

    @Override
    public <U, V> CompletionStage<V> thenCombineAsync(CompletionStage<? extends U> other,
                                                      BiFunction<? super Result, ? super U, ? extends V> fn,
                                                      Executor executor) {
        return future.thenCombineAsync(other, fn, executor);
    }

    @Override
    public <U> CompletionStage<Void> thenAcceptBoth(CompletionStage<? extends U> other,
                                                    BiConsumer<? super Result, ? super U> action) {
        return future.thenAcceptBoth(other, action);
    }

    @Override
    public <U> CompletionStage<Void> thenAcceptBothAsync(CompletionStage<? extends U> other,
                                                         BiConsumer<? super Result, ? super U> action) {
        return future.thenAcceptBothAsync(other, action);
    }

    @Override
    public <U> CompletionStage<Void> thenAcceptBothAsync(CompletionStage<? extends U> other,
                                                         BiConsumer<? super Result, ? super U> action,
                                                         Executor executor) {
        return future.thenAcceptBothAsync(other, action, executor);
    }

    @Override
    public CompletionStage<Void> runAfterBoth(CompletionStage<?> other, Runnable action) {
        return future.runAfterBoth(other, action);
    }

    @Override
    public CompletionStage<Void> runAfterBothAsync(CompletionStage<?> other, Runnable action) {
        return future.runAfterBothAsync(other, action);
    }

    @Override
    public CompletionStage<Void> runAfterBothAsync(CompletionStage<?> other, Runnable action, Executor executor) {
        return future.runAfterBothAsync(other, action, executor);
    }

    @Override
    public <U> CompletionStage<U> applyToEither(CompletionStage<? extends Result> other,
                                                Function<? super Result, U> fn) {
        return future.applyToEither(other, fn);
    }

    @Override
    public <U> CompletionStage<U> applyToEitherAsync(CompletionStage<? extends Result> other,
                                                     Function<? super Result, U> fn) {
        return future.applyToEitherAsync(other, fn);
    }

    @Override
    public <U> CompletionStage<U> applyToEitherAsync(CompletionStage<? extends Result> other,
                                                     Function<? super Result, U> fn, Executor executor) {
        return future.applyToEitherAsync(other, fn, executor);
    }

    @Override
    public CompletionStage<Void> acceptEither(CompletionStage<? extends Result> other,
                                              Consumer<? super Result> action) {
        return future.acceptEither(other, action);
    }

    @Override
    public CompletionStage<Void> acceptEitherAsync(CompletionStage<? extends Result> other,
                                                   Consumer<? super Result> action) {
        return future.acceptEitherAsync(other, action);
    }

    @Override
    public CompletionStage<Void> acceptEitherAsync(CompletionStage<? extends Result> other,
                                                   Consumer<? super Result> action, Executor executor) {
        return future.acceptEitherAsync(other, action, executor);
    }

    @Override
    public CompletionStage<Void> runAfterEither(CompletionStage<?> other, Runnable action) {
        return future.runAfterEither(other, action);
    }

    @Override
    public CompletionStage<Void> runAfterEitherAsync(CompletionStage<?> other, Runnable action) {
        return future.runAfterEitherAsync(other, action);
    }

    @Override
    public CompletionStage<Void> runAfterEitherAsync(CompletionStage<?> other, Runnable action, Executor executor) {
        return future.runAfterEitherAsync(other, action, executor);
    }

    @Override
    public <U> CompletionStage<U> thenCompose(Function<? super Result, ? extends CompletionStage<U>> fn) {
        return future.thenCompose(fn);
    }

    @Override
    public <U> CompletionStage<U> thenComposeAsync(Function<? super Result, ? extends CompletionStage<U>> fn) {
        return future.thenComposeAsync(fn);
    }

    @Override
    public <U> CompletionStage<U> thenComposeAsync(Function<? super Result, ? extends CompletionStage<U>> fn,
                                                   Executor executor) {
        return future.thenComposeAsync(fn, executor);
    }

    @Override
    public <U> CompletionStage<U> handle(BiFunction<? super Result, Throwable, ? extends U> fn) {
        return future.handle(fn);
    }

    @Override
    public <U> CompletionStage<U> handleAsync(BiFunction<? super Result, Throwable, ? extends U> fn) {
        return future.handleAsync(fn);
    }

    @Override
    public <U> CompletionStage<U> handleAsync(BiFunction<? super Result, Throwable, ? extends U> fn,
                                              Executor executor) {
        return future.handleAsync(fn, executor);
    }

    @Override
    public CompletionStage<Result> whenComplete(BiConsumer<? super Result, ? super Throwable> action) {
        return future.whenComplete(action);
    }

    @Override
    public CompletionStage<Result> whenCompleteAsync(BiConsumer<? super Result, ? super Throwable> action) {
        return future.whenCompleteAsync(action);
    }

    @Override
    public CompletionStage<Result> whenCompleteAsync(BiConsumer<? super Result, ? super Throwable> action,
                                                     Executor executor) {
        return future.whenCompleteAsync(action, executor);
    }

    @Override
    public CompletionStage<Result> exceptionally(Function<Throwable, ? extends Result> fn) {
        return future.exceptionally(fn);
    }
}
