package kvgate.dispatch;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import kvgate.spi.Result;
import kvgate.spi.Status;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Turns whatever a backend or filter does wrong into a {@link Status#BACKEND_ERROR} result. */
final class Outcomes {
    private static final Logger LOG = LoggerFactory.getLogger(Outcomes.class);

    private Outcomes() {
    }

    /** The stage's result; a null stage, a null result or an exception become a backend error. */
    static CompletionStage<Result> guarded(CompletionStage<Result> stage) {
        if (stage == null) {
            return CompletableFuture.completedFuture(Result.failure(Status.BACKEND_ERROR, "no result"));
        }
        return stage.handle((result, error) -> {
            if (error != null) {
                LOG.warn("operation completed with an exception", error);
                return backendError(error);
            }
            return result == null ? Result.failure(Status.BACKEND_ERROR, "no result") : result;
        });
    }

    static Result.Failure backendError(Throwable error) {
        String message = error.getMessage();
        return Result.failure(Status.BACKEND_ERROR, message == null ? error.getClass().getSimpleName() : message);
    }
}
