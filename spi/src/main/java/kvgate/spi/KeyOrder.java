package kvgate.spi;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * Runs the operations of one key one after another, in the order they are handed over, for a backend or route node
 * whose operations take several steps (a read, then a compare-and-set write): without it a get pipelined right
 * behind an append of the same key could send its read before the append's write and miss what the client had just
 * been told was stored. Operations of different keys run side by side; an idle key holds nothing. Thread-safe.
 */
public final class KeyOrder {
    /** Per key, the operation that reached the node last, completed when it has been answered. */
    private final ConcurrentHashMap<String, CompletableFuture<Void>> last = new ConcurrentHashMap<>();

    /** Starts {@code operation} once the operations of {@code key} handed over before it are answered. */
    public <T> CompletionStage<T> inOrder(String key, Supplier<CompletionStage<T>> operation) {
        CompletableFuture<Void> mine = new CompletableFuture<>();
        CompletableFuture<Void> before = last.put(key, mine);
        CompletionStage<T> answered = before == null ? start(operation)
                : before.thenCompose(ignored -> start(operation));
        answered.whenComplete((result, error) -> {
            last.remove(key, mine);
            mine.complete(null);
        });
        return answered;
    }

    /** The operation's stage; one that throws instead of answering fails its stage, and the next still runs. */
    private static <T> CompletionStage<T> start(Supplier<CompletionStage<T>> operation) {
        try {
            return operation.get();
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }
}
