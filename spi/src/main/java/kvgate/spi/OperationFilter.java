package kvgate.spi;

import java.util.concurrent.CompletionStage;
import org.pf4j.ExtensionPoint;

/**
 * The extension point for plugins that act on the operation stream without storing data: rewrite keys, shadow
 * traffic, warm one store from another, refuse or count operations.
 *
 * <p>Filters named in the configuration line {@code filters = a,b} run in that order around every operation, the
 * first named outermost. Each receives the operation and the rest of the chain; it may change the operation, answer
 * it without calling {@code next}, or call {@code next} and change the result. Like {@link Backend#execute}, it runs
 * on network threads and must not block.
 */
public interface OperationFilter extends ExtensionPoint {

    /** The name used in the {@code filters} configuration line. */
    String name();

    /** Handles one operation, usually by calling {@code next.execute} with it or a changed copy. */
    CompletionStage<Result> apply(Operation operation, Next next);

    /** The rest of the chain: further filters, then the backend. */
    @FunctionalInterface
    interface Next {
        CompletionStage<Result> execute(Operation operation);
    }
}
