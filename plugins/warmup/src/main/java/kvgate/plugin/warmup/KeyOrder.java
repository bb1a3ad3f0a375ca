package kvgate.plugin.warmup;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * Runs the operations of one key through the node one after another, in the order they reach it. Each takes several
 * steps over two stores (a set warms its key, deletes the old copy, then stores), so without this a get sent right
 * behind a set on one connection (pipelined, as memcached clients send them) could run its steps first and miss the
 * value the client had just been told was stored. Operations of different keys still run side by side; an idle key
 * holds nothing. The backfill's copies do not pass here: {@link RecentWrites} orders them against writes.
 */
final class KeyOrder {
    /** Per key, the operation that reached the node last, completed when it has been answered. */
    private final ConcurrentHashMap<String, CompletableFuture<Void>> last = new ConcurrentHashMap<>();

    /** Starts {@code operation} once the operations of {@code key} that reached the node before it are answered. */
    <T> CompletionStage<T> inOrder(String key, Supplier<CompletionStage<T>> operation) {
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
