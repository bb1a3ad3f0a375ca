package kvgate.dispatch;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import kvgate.spi.Operation;
import kvgate.spi.Result;

/**
 * The way into the operation stream, which the {@link Dispatcher} is. A protocol's connection sends its requests'
 * operations here, and a request that needs several operations in turn (okuyama's compare-and-retry, a document
 * changed in place, a stored value then its tags) is given it to send them to, rather than holding the dispatcher
 * itself. Its stages never complete exceptionally: a failure is a result.
 */
public interface OperationStream {

    /** Starts one operation. */
    CompletionStage<Result> dispatch(Operation operation);

    /** Starts operations that belong together, in order, one stage per operation. */
    List<CompletionStage<Result>> dispatchAll(List<Operation> operations);

    /** Starts operations that belong together and gives their results, in order, once all have come. */
    default CompletionStage<List<Result>> dispatchJoined(List<Operation> operations) {
        return joined(dispatchAll(operations));
    }

    /** The results of every stage, in order, once all completed (stages of the stream, which never fail). */
    static CompletionStage<List<Result>> joined(List<CompletionStage<Result>> stages) {
        CompletableFuture<?>[] all = new CompletableFuture<?>[stages.size()];
        for (int i = 0; i < all.length; i++) {
            all[i] = stages.get(i).toCompletableFuture();
        }
        return CompletableFuture.allOf(all).thenApply(ignored -> {
            List<Result> results = new ArrayList<>(stages.size());
            for (CompletionStage<Result> stage : stages) {
                results.add(stage.toCompletableFuture().join());
            }
            return results;
        });
    }
}
