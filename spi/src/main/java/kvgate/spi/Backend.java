package kvgate.spi;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletionStage;

/**
 * A running store that executes operations. Created by a {@link BackendFactory}; one gateway may hold several.
 *
 * <h2>Threading</h2>
 * {@link #execute} is called on the gateway's network threads and must not block them: return a stage that
 * completes later if the work waits on I/O, a lock held for long, or a disk sync, and do that work on threads of
 * your own. Work that takes microseconds in memory may complete before returning.
 *
 * <h2>Order</h2>
 * Operations passed in one {@link #executeAll} call, and operations passed in successive calls from one thread,
 * must take effect in the order given when they touch the same key: a client that pipelines a set and a get of one
 * key reads what it set. Completions may arrive in any order; the gateway restores request order for replies.
 *
 * <h2>Failures</h2>
 * Report every failure as a {@link Result.Failure} ({@link Status#TEMPORARY_FAILURE} when a retry may succeed,
 * {@link Status#BACKEND_ERROR} when the outcome is unknown). A stage completed exceptionally, or an exception
 * thrown from {@code execute}, is turned into {@link Status#BACKEND_ERROR} by the gateway, never swallowed.
 *
 * <h2>Semantics</h2>
 * The operation records document what each must do. A backend with an atomic read-modify-write of one key can
 * implement every key operation with {@link ItemTransition}.
 */
public interface Backend extends AutoCloseable {

    /** What this backend offers beyond the basic operations. */
    Set<Capability> capabilities();

    /** Starts one operation. */
    CompletionStage<Result> execute(Operation operation);

    /**
     * Starts several operations that arrived together (a pipelined burst from one client connection), returning
     * one stage per operation in the same order. Override to send them in one round trip; the default starts them
     * one by one.
     */
    default List<CompletionStage<Result>> executeAll(List<Operation> operations) {
        List<CompletionStage<Result>> results = new ArrayList<>(operations.size());
        for (Operation operation : operations) {
            results.add(execute(operation));
        }
        return results;
    }

    /**
     * Statistics in memcached's naming where one applies ({@code curr_items}, {@code bytes}), cheap to compute and
     * never blocking; the gateway adds them to its own. Empty by default.
     */
    default Map<String, String> stats() {
        return Map.of();
    }

    /**
     * Stops the backend: finishes or fails what is in flight, makes acknowledged writes durable where the backend
     * is durable, and releases files, connections and threads. Called once, after the gateway stopped accepting
     * requests.
     */
    @Override
    void close() throws Exception;
}
