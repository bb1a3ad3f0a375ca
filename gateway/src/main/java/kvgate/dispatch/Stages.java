package kvgate.dispatch;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import kvgate.spi.ResultFuture;

/**
 * The value of a stage that has already completed. A store in memory completes most operations before it returns,
 * and the path from the store to the reply then needs no chain of dependent stages, each an allocation and an
 * indirection per request.
 */
public final class Stages {
    private Stages() {
    }

    /** The value of {@code stage} if it completed normally with a value already, else null. */
    @SuppressWarnings("unchecked")
    public static <T> T valueNow(CompletionStage<T> stage) {
        if (stage instanceof ResultFuture result) {
            return (T) result.now(); // a ResultFuture is a stage of Result, and never completes exceptionally
        }
        if (stage instanceof CompletableFuture<T> future && future.isDone() && !future.isCompletedExceptionally()) {
            return future.getNow(null);
        }
        return null;
    }
}
