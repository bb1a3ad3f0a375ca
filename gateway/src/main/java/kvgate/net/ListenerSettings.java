package kvgate.net;

import java.util.List;
import kvgate.config.GatewaySettings;
import kvgate.spi.Setting;

/**
 * The settings of a protocol's listener, which {@link Listeners} reads: {@code <protocol>.enable},
 * {@code <protocol>.bind}, {@code <protocol>.port}, {@code <protocol>.allow} and, for a stream protocol,
 * {@code <protocol>.socket}.
 */
public final class ListenerSettings {
    private ListenerSettings() {
    }

    /**
     * A stream protocol's: served on TCP and, when {@code <protocol>.socket} names one, a Unix domain socket too.
     *
     * @param served what is served, for the descriptions ("the okuyama text protocol")
     */
    public static List<Setting> stream(String protocol, String served, boolean enabled, int port) {
        return stream(protocol, served, "the " + protocol + " listener", enabled, port);
    }

    /** @param named the listener, as the descriptions name it ("the memcached (and Couchbase management) listener") */
    public static List<Setting> stream(String protocol, String served, String named, boolean enabled, int port) {
        return List.of(enable(protocol, served, enabled), bind(protocol, named), port(protocol, served, port),
                GatewaySettings.allow(protocol, "connect", named), GatewaySettings.tls(protocol, named),
                Setting.text(UnixSockets.key(protocol), "", "a Unix domain socket (a path) to serve "
                        + served + " on as well, for clients on this host, as memcached's `-s` (empty: none); see "
                        + "[Unix domain sockets](#unix-domain-sockets)"));
    }

    /** A datagram protocol's: served on UDP. */
    public static List<Setting> datagram(String protocol, String served, String named, boolean enabled, int port) {
        return List.of(enable(protocol, served, enabled), bind(protocol, named), port(protocol, served, port),
                GatewaySettings.allow(protocol, "send", named));
    }

    private static Setting enable(String protocol, String served, boolean enabled) {
        return Setting.bool(Protocol.enableKey(protocol), enabled, "serve " + served);
    }

    private static Setting bind(String protocol, String named) {
        return Setting.text(protocol + ".bind", "0.0.0.0", "address of " + named + "; `0.0.0.0` takes IPv4 and, "
                + "where the host has it, IPv6 (one dual-stack socket); to serve clients beyond this host, bind an "
                + "address they reach and list their networks in `" + GatewaySettings.allowKey(protocol)
                + "` (empty, it takes any)");
    }

    private static Setting port(String protocol, String served, int port) {
        return Setting.integer(protocol + ".port", port, 0, 65535, "port of " + served + " (0: any free port)");
    }
}
