package kvgate.net;

import java.util.List;
import java.util.Map;
import java.util.function.Function;
import kvgate.config.ConfigurationException;
import kvgate.config.StartupException;
import kvgate.spi.Namespace;
import kvgate.spi.Setting;
import kvgate.spi.Settings;

/**
 * A wire protocol the gateway serves, as a route node type is a {@code RouteFactory}: a name, the settings it reads,
 * and a start that takes what it needs from a {@link ProtocolContext}. Each protocol is a package of its own with one
 * {@code Protocol}, registered by name in the composition root's list of protocols.
 *
 * <p>Its settings are keyed {@code <name>.<key>} (a few older keys that clients' own configurations share keep their
 * names). Three are read by the gateway itself: {@code <name>.enable}, whether it is served; for a listener bound by
 * {@link ProtocolContext#listen} or {@link ProtocolContext#listenDatagram}, {@code <name>.bind} and
 * {@code <name>.port}; and, where it declares one, {@code <name>.socket}, a Unix domain socket served too.
 */
public interface Protocol {

    /** Its name: the prefix of its settings, the name of its listener, and the tag of its meters. */
    String name();

    /** Every setting it reads, with defaults; the gateway validates values against them. */
    List<Setting> settings();

    /** Other spellings accepted for its keys, as a key to the key it stands for. */
    default Map<String, String> aliases() {
        return Map.of();
    }

    /**
     * Checks what the settings can only say together, before anything listens, whether or not the protocol is served.
     */
    default void check(Settings settings) throws ConfigurationException {
    }

    /**
     * How the admin port's {@code explain} names a namespace in this protocol's terms, or null when its requests use
     * no namespace (counters). Asked whether or not the protocol is served, so an operator can explain a namespace
     * before turning it on.
     */
    default Naming naming(ProtocolContext context) throws ConfigurationException {
        return null;
    }

    /**
     * Whether connections must authenticate before anything else: then the gateway warns of the other protocols
     * listening beyond this host without authentication, which reach the same stores.
     */
    default boolean authenticates(Settings settings) {
        return false;
    }

    /** Starts serving: binds its listeners through the context. Called only when {@code <name>.enable} is true. */
    void start(ProtocolContext context) throws ConfigurationException, StartupException;

    /** The key of the setting saying whether the protocol is served. */
    static String enableKey(String name) {
        return name + ".enable";
    }

    /**
     * What the admin port's {@code explain <protocol> [<where>] <key>} makes of the words after the protocol.
     *
     * @param where what explain takes before the key, as its help shows it; empty when the protocol has one namespace
     * @param name the namespace {@code where} names (given empty when {@code where} is), with how explain describes
     *     it; it throws {@link IllegalArgumentException}, naming what is wrong, when {@code where} names none
     */
    record Naming(String where, Function<String, Named> name) {
        /** The naming of a protocol whose requests all go to one namespace. */
        public static Naming single(Namespace namespace, String described) {
            Named named = new Named(namespace, described);
            return new Naming("", where -> named);
        }
    }

    /** A namespace and how explain describes where it came from ({@code memcached default}, {@code MPDB users}). */
    record Named(Namespace namespace, String described) {
    }
}
