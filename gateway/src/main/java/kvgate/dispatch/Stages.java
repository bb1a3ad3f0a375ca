package kvgate.dispatch;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * The value of a stage that has already completed. A store in memory completes most operations before it returns,
 * and the path from the store to the reply then needs no chain of dependent stages, each an allocation and an
 * indirection per request.
 */
public final class Stages {
    private Stages() {
    }

    /** The value of {@code stage} if it completed normally with a value already, else null. */
    public static <T> T valueNow(CompletionStage<T> stage) {
        if (stage instanceof CompletableFuture<T> future && future.isDone() && !future.isCompletedExceptionally()) {
            return future.getNow(null);
        }
        return null;
    }
}
