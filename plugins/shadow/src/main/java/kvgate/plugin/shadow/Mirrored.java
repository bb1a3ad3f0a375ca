package kvgate.plugin.shadow;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import kvgate.spi.Operation;
import kvgate.spi.Result;
import kvgate.spi.ResultFuture;

/**
 * An operation picked for the shadow, with the primary's answer to it, which its shadow's answer is compared with.
 */
final class Mirrored {
    private final Operation operation;
    private final CompletionStage<Result> answer;
    private final CompletableFuture<Void> place = new CompletableFuture<>();
    /** A read's place in its key's order ({@link ReadOrder}); null for anything else. Set once, before it is sent. */
    private volatile ReadOrder.Ticket ticket;
    /** A write's (or a flush's) number in the order of its key (or namespace) ({@link ReadOrder}). */
    private long number;

    /**
     * @param operation the operation as the primary got it (a write with a CAS still carries it)
     * @param answer the primary's answer; never fails ({@link kvgate.spi.Route#guarded})
     */
    Mirrored(Operation operation, CompletionStage<Result> answer) {
        this.operation = operation;
        this.answer = answer;
    }

    Operation operation() {
        return operation;
    }

    CompletionStage<Result> answer() {
        return answer;
    }

    /**
     * Completed once the operation's place of {@code max_inflight} is free again: the shadow answered it, or it was
     * never sent; the node's work after its answer until then ({@link kvgate.spi.RouteContext#background}).
     */
    CompletableFuture<Void> place() {
        return place;
    }

    ReadOrder.Ticket ticket() {
        return ticket;
    }

    void ticket(ReadOrder.Ticket ticket) {
        this.ticket = ticket;
    }

    long number() {
        return number;
    }

    void number(long number) {
        this.number = number;
    }

    /**
     * Whether it can go to the shadow now: a write with the primary's CAS only once the primary answered it, as only
     * then is it known whether the primary applied it.
     */
    boolean ready() {
        return !MirrorPolicy.checksCas(operation) || ResultFuture.isDone(answer);
    }
}
