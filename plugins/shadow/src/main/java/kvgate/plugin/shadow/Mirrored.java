package kvgate.plugin.shadow;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import kvgate.spi.Operation;
import kvgate.spi.Result;
import kvgate.spi.ResultFuture;

/**
 * An operation picked for the shadow, with the primary's answer to it, which its shadow's answer is compared with.
 *
 * @param operation the operation as the primary got it (a write with a CAS still carries it)
 * @param answer the primary's answer; never fails ({@link kvgate.spi.Route#guarded})
 * @param place completed once the operation's place of {@code max_inflight} is free again: the shadow answered it,
 *     or it was never sent; the node's work after its answer until then ({@link kvgate.spi.RouteContext#background})
 */
record Mirrored(Operation operation, CompletionStage<Result> answer, CompletableFuture<Void> place) {

    Mirrored(Operation operation, CompletionStage<Result> answer) {
        this(operation, answer, new CompletableFuture<>());
    }

    /**
     * Whether it can go to the shadow now: a write with the primary's CAS only once the primary answered it, as only
     * then is it known whether the primary applied it.
     */
    boolean ready() {
        return !MirrorPolicy.checksCas(operation) || ResultFuture.isDone(answer);
    }
}
