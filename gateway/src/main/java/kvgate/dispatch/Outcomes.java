package kvgate.dispatch;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import kvgate.spi.Backend;
import kvgate.spi.Operation;
import kvgate.spi.Result;
import kvgate.spi.ResultFuture;
import kvgate.spi.Status;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Turns whatever a backend or filter does wrong into a {@link Status#BACKEND_ERROR} result. */
public final class Outcomes {
    private static final Logger LOG = LoggerFactory.getLogger(Outcomes.class);

    private Outcomes() {
    }

    /**
     * The stage's result; a null stage, a null result or an exception become a backend error. A stage that cannot
     * fail (a {@link ResultFuture}: a backend's own, or one this made at a leaf of the route tree, now guarded again
     * at its root) or that has its result already is returned as it is, with no stage of its own added.
     */
    public static CompletionStage<Result> guarded(CompletionStage<Result> stage) {
        if (stage == null) {
            return ResultFuture.of(null);
        }
        if (stage instanceof ResultFuture || Stages.valueNow(stage) != null) {
            return stage;
        }
        ResultFuture guarded = new ResultFuture();
        stage.whenComplete((result, error) -> {
            if (error != null) {
                LOG.warn("operation completed with an exception", error);
            }
            guarded.settle(result, error);
        });
        return guarded;
    }

    /**
     * Starts a batch ({@link Backend#executeAll} or {@link kvgate.spi.Route#executeAll}), one guarded stage per
     * operation: a batch that throws, or returns the wrong number of stages, fails every operation with a backend
     * error. The list is a new one, the caller's to change.
     */
    public static List<CompletionStage<Result>> executeAll(
            Function<List<Operation>, List<CompletionStage<Result>>> batch, List<Operation> operations) {
        List<CompletionStage<Result>> started;
        try {
            started = batch.apply(operations);
            if (started == null || started.size() != operations.size()) {
                throw new IllegalStateException("executeAll returned " + (started == null ? "null" : started.size()
                        + " results") + " for " + operations.size() + " operations");
            }
        } catch (RuntimeException e) {
            LOG.warn("a batch of {} operations failed", operations.size(), e);
            List<CompletionStage<Result>> failed = new ArrayList<>(operations.size());
            for (int i = 0; i < operations.size(); i++) {
                failed.add(CompletableFuture.completedFuture(Result.backendError(e)));
            }
            return failed;
        }
        List<CompletionStage<Result>> guarded = new ArrayList<>(operations.size());
        for (CompletionStage<Result> stage : started) {
            guarded.add(guarded(stage));
        }
        return guarded;
    }
}
