package kvgate.plugin.warmup;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.function.Predicate;
import kvgate.spi.Operation;
import kvgate.spi.Result;
import kvgate.spi.Route;

/**
 * Wraps a child route and holds back the first operation that matches, so a test can make a race happen in the order
 * it wants: either the operation reaches the store only when the gate opens ({@link #holdingRequests}), or it runs
 * at once and only its answer waits ({@link #holdingAnswers}).
 */
final class Gate implements Route {
    private final Route store;
    private final Predicate<Operation> matches;
    private final boolean holdRequest;
    private final CompletableFuture<Void> open = new CompletableFuture<>();
    private final CountDownLatch reached = new CountDownLatch(1);
    private boolean used;

    private Gate(Route store, Predicate<Operation> matches, boolean holdRequest) {
        this.store = store;
        this.matches = matches;
        this.holdRequest = holdRequest;
    }

    static Gate holdingRequests(Route store, Predicate<Operation> matches) {
        return new Gate(store, matches, true);
    }

    static Gate holdingAnswers(Route store, Predicate<Operation> matches) {
        return new Gate(store, matches, false);
    }

    @Override
    public CompletionStage<Result> execute(Operation operation) {
        boolean hold;
        synchronized (this) {
            hold = !used && matches.test(operation);
            used |= hold;
        }
        if (!hold) {
            return store.execute(operation);
        }
        reached.countDown();
        if (holdRequest) {
            return open.thenCompose(opened -> store.execute(operation));
        }
        CompletionStage<Result> answer = store.execute(operation);
        return open.thenCompose(opened -> answer);
    }

    /** Waits until the held operation has arrived. */
    void awaitHeld() throws InterruptedException {
        reached.await();
    }

    void open() {
        open.complete(null);
    }
}
