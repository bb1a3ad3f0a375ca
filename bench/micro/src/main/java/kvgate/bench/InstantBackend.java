package kvgate.bench;

import java.util.EnumSet;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import kvgate.spi.Backend;
import kvgate.spi.Capability;
import kvgate.spi.Operation;
import kvgate.spi.Result;
import kvgate.spi.Status;

/**
 * A backend that holds nothing and answers at once (gets: not found; everything else: done), for translators that
 * need a dispatcher to be built: the benchmarks hand results to the translators themselves.
 */
public final class InstantBackend implements Backend {
    private static final CompletionStage<Result> MISS = CompletableFuture.completedFuture(
            Result.failure(Status.NOT_FOUND));
    private static final CompletionStage<Result> DONE = CompletableFuture.completedFuture(Result.DONE);

    @Override
    public Set<Capability> capabilities() {
        return EnumSet.noneOf(Capability.class);
    }

    @Override
    public CompletionStage<Result> execute(Operation operation) {
        return operation instanceof Operation.Get ? MISS : DONE;
    }

    @Override
    public void close() {
    }
}
