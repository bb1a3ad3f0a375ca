package kvgate.spi;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.LongAdder;

/**
 * What the gateway gives a {@link RouteFactory} building a node.
 *
 * @param name the node's name ({@code routes.<name>.type}), for messages and metrics
 * @param settings the values of the settings the factory declared, validated, defaults filled in
 * @param children resolves a name found in the settings to the route it names
 * @param scheduler the gateway's network threads, for work that must happen later (timeouts, sampling); never block
 * @param counters the node's counters, published with the gateway's metrics
 * @param background counts the work the node goes on with after it answered, for the tree's retirement
 */
public record RouteContext(String name, Settings settings, Children children, ScheduledExecutorService scheduler,
                           Counters counters, Background background) {

    /** A context whose node's work after its answers nobody waits for: for a node built on its own, in a test. */
    public RouteContext(String name, Settings settings, Children children, ScheduledExecutorService scheduler,
                        Counters counters) {
        this(name, settings, children, scheduler, counters, work -> {
        });
    }

    /**
     * Work a node goes on with after it has answered: a request mirrored to a shadow store, the writes an {@code all}
     * node's other children have not answered yet, a child's request a failover node stopped waiting for. When a
     * reload retires the tree holding the node, the gateway closes the tree's nodes and the backend instances it
     * alone held only once this work is done too, not only the operations clients wait for (within the same grace
     * period), so that such work never meets a store closed under it.
     */
    @FunctionalInterface
    public interface Background {
        /** Counts {@code work} as the node's until it completes, whichever way. */
        void track(CompletionStage<?> work);
    }

    /** Counts {@code work} as this node's background work (see {@link Background}) and returns it. */
    public <T> CompletionStage<T> background(CompletionStage<T> work) {
        background.track(work);
        return work;
    }

    /** Resolves names to routes while the tree is built. */
    @FunctionalInterface
    public interface Children {
        /**
         * The route named {@code name}: a configured route ({@code routes.<name>}) or a backend instance
         * ({@code backends.<name>}, or {@code default} for the one of {@code backend = <type>}).
         *
         * @throws IllegalArgumentException when no route or backend has that name, or the tree would loop
         */
        Route route(String name);
    }

    /**
     * Counters a node keeps (what it mirrored, what did not match), published with the gateway's metrics as
     * {@code kvgate.route.<counter>} tagged {@code route=<node name>}: in the memcached protocol's {@code stats routes}
     * and the admin port's {@code stats}. A JDK {@link LongAdder}, so that counting on the data path is one add and
     * a plugin needs no metrics library.
     */
    @FunctionalInterface
    public interface Counters {
        /**
         * The counter {@code name} of this node: lower case, digits and underscores. Asked again with the same name,
         * also by the node rebuilt when the configuration is reloaded, it is the same counter, so counts go on
         * rising across reloads as monotonic counters must.
         */
        LongAdder counter(String name);
    }

    /** The node's counter {@code name}; see {@link Counters#counter}. */
    public LongAdder counter(String name) {
        return counters.counter(name);
    }

    /** The route named {@code name}; see {@link Children#route}. */
    public Route route(String name) {
        return children.route(name.strip());
    }

    /**
     * The routes named in the comma-separated value of setting {@code key}, in order.
     *
     * @throws IllegalArgumentException when fewer than {@code atLeast} are named
     */
    public List<Route> routes(String key, int atLeast) {
        List<Route> routes = new ArrayList<>();
        for (String name : settings.text(key).split(",")) {
            if (!name.isBlank()) {
                routes.add(route(name));
            }
        }
        if (routes.size() < atLeast) {
            throw new IllegalArgumentException(key + " must name at least " + atLeast + " route"
                    + (atLeast == 1 ? "" : "s") + " (comma-separated), not '" + settings.text(key) + "'");
        }
        return routes;
    }

    /**
     * The value of a setting that must not be left empty.
     *
     * @throws IllegalArgumentException when it is empty
     */
    public String required(String key) {
        String value = settings.text(key);
        if (value.isEmpty()) {
            throw new IllegalArgumentException(key + " is required (routes." + name + "." + key + ")");
        }
        return value;
    }
}
