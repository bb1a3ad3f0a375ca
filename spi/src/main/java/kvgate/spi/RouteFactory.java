package kvgate.spi;

import java.util.List;
import org.pf4j.ExtensionPoint;

/**
 * The extension point a route node plugin implements: it names a node type and builds nodes of it from the
 * configuration. A node is configured as {@code routes.<name>.type = <type>} plus {@code routes.<name>.<key>} for
 * each setting the factory declares; {@code route = <name>} names the root. The gateway's own nodes ({@code backend},
 * {@code prefix}, {@code namespace}, {@code all}) are built the same way, so a plugin's node sits in
 * the tree exactly like them.
 *
 * <p>Mark the implementation with PF4J's {@code @Extension}; it needs a public no-argument constructor and must be
 * cheap to construct (the gateway instantiates every factory it finds to learn the settings).
 */
public interface RouteFactory extends ExtensionPoint {

    /** The type name used in {@code routes.<name>.type}; lower case, no dots. */
    String type();

    /** The settings a node of this type reads, with defaults; the gateway validates values against them. */
    List<Setting> settings();

    /**
     * Builds one node. Children are named in the node's settings and obtained from {@link RouteContext#route}.
     *
     * @throws IllegalArgumentException when the settings do not make a node (a required setting left empty, a value
     *     that does not parse); the gateway stops with the message, naming the route
     */
    Route build(RouteContext context);
}
