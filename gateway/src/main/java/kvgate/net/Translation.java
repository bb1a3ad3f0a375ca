package kvgate.net;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import kvgate.dispatch.OperationStream;
import kvgate.spi.Operation;
import kvgate.spi.Result;

/**
 * What a protocol's translator makes of one request frame: an answer of its own, or an operation for the
 * dispatcher and how to turn its result into the answer.
 *
 * @param <R> the protocol's reply message
 */
public sealed interface Translation<R> {

    /**
     * The replies to one request, in order; {@code close} closes the connection once they are written. Most answers
     * are one reply, which needs no list around it.
     */
    sealed interface Answer<R> extends Translation<R> permits Reply, Replies {
        boolean close();
    }

    /** Exactly one reply. */
    record Reply<R>(R reply, boolean close) implements Answer<R> {
    }

    /** Any number of replies: none for a silent success, several for a statistics listing or a dump. */
    record Replies<R>(List<R> replies, boolean close) implements Answer<R> {
        public Replies {
            replies = List.copyOf(replies);
        }
    }

    /**
     * Dispatch {@code operation}; {@code reply} turns its result into the answer. It runs on the connection's event
     * loop, so it may touch per-connection state.
     */
    record Forward<R>(Operation operation, Function<Result, Answer<R>> reply) implements Translation<R> {
    }

    /**
     * Dispatch {@code operations} with the rest of the read burst (a multi-key get of a text protocol: each key its
     * operation, batched with the burst's others); {@code reply} turns their results, in the same order, into the one
     * answer. It runs on the connection's event loop.
     */
    record ForwardAll<R>(List<Operation> operations, Function<List<Result>, Answer<R>> reply)
            implements Translation<R> {
        public ForwardAll {
            operations = List.copyOf(operations);
        }
    }

    /**
     * The answer comes from work that is more than one operation (a manifest update: read, check, compare-and-swap;
     * a value, then its tags). The connection starts {@code work} once the requests before it are dispatched, giving
     * it the operation stream to send its operations to, and translates the requests after it only when it is done,
     * so they see its effect, as a server runs one connection's commands in order. The stage must not complete
     * exceptionally; it may complete on any thread.
     */
    record Await<R>(Function<OperationStream, CompletionStage<Answer<R>>> work) implements Translation<R> {
    }

    /**
     * Runs this translation inside other work (an {@link Await} that must first check something, such as an okuyama
     * lock): its operations go to {@code stream}, and the stage gives its answer. Its reply functions then run on
     * whichever thread completes them, so a translation run this way must keep no per-connection state in them.
     */
    default CompletionStage<Answer<R>> perform(OperationStream stream) {
        if (this instanceof Answer<R> answer) {
            return CompletableFuture.completedFuture(answer);
        }
        if (this instanceof Forward<R> forward) {
            return stream.dispatch(forward.operation()).thenApply(forward.reply());
        }
        if (this instanceof ForwardAll<R> all) {
            return stream.dispatchJoined(all.operations()).thenApply(all.reply());
        }
        return ((Await<R>) this).work().apply(stream);
    }

    /** One reply, or silence when {@code reply} is null. */
    static <R> Answer<R> answer(R reply) {
        return reply == null ? new Replies<>(List.of(), false) : new Reply<>(reply, false);
    }

    static <R> Answer<R> answers(List<R> replies) {
        return new Replies<>(replies, false);
    }

    /** The reply (or silence, when null), then the connection is closed. */
    static <R> Answer<R> answerAndClose(R reply) {
        return reply == null ? new Replies<>(List.of(), true) : new Reply<>(reply, true);
    }
}
