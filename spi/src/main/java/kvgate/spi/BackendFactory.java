package kvgate.spi;

import java.util.List;
import org.pf4j.ExtensionPoint;

/**
 * The extension point a backend plugin implements: it names a backend type and opens instances of it.
 *
 * <p>A plugin marks its implementation with PF4J's {@code @Extension}; the gateway finds it in the plugins
 * directory. The configuration line {@code backend = <type>} selects it, and each setting the factory declares is
 * configured as {@code <type>.<key>} (for example {@code local.path}); further instances are configured as
 * {@code backends.<name>.type = <type>} with {@code backends.<name>.<key>}. Keys that no loaded factory or the gateway
 * declares stop start-up, so declare every key you read.
 *
 * <p>Implementations need a public no-argument constructor and must be cheap to construct: the gateway
 * instantiates every factory it finds to learn the settings, but opens only the one selected.
 */
public interface BackendFactory extends ExtensionPoint {

    /** The type name used in {@code backend = <type>} and as the settings prefix; lower case, no dots. */
    String type();

    /** The settings this backend reads, with defaults; the gateway validates values against them. */
    List<Setting> settings();

    /**
     * What the backend stores into, in a sentence of Markdown, as the configuration reference and
     * {@code bin/gateway --help} introduce its settings (empty: nothing).
     */
    default String description() {
        return "";
    }

    /**
     * Opens a backend instance. May block (to open files or connect); it runs before the gateway listens.
     *
     * @throws Exception when the backend cannot start; the gateway stops with the message, naming the plugin
     */
    Backend open(BackendContext context) throws Exception;
}
