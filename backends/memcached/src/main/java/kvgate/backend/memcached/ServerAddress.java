package kvgate.backend.memcached;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * One memcached server of the pool: {@code host:port[:weight][ name]}, an IPv6 host in brackets, or
 * {@code /path[:weight][ name]}, the Unix domain socket of a memcached on the same host (memcached -s), written as
 * twemproxy writes one.
 *
 * @param endpoint where the server listens
 * @param weight its share of the keys, relative to the other servers' weights
 * @param name what ketama hashes to place the server's points: as in twemproxy ({@code - host:port:weight name})
 *     and libmemcached, {@code host:port} unless given, only {@code host} when the port is 11211, and for a socket
 *     its path and a colon, as twemproxy names one
 */
public record ServerAddress(Endpoint endpoint, int weight, String name) {
    public static final int DEFAULT_PORT = 11211;
    /**
     * The longest socket path Linux takes: sun_path holds 108 bytes with the terminating NUL. Checked when the
     * configuration is read, so a long path fails the start, not every connection later.
     */
    static final int MAX_SOCKET_PATH = 107;

    /** Where a server listens; each kind is connected to by the socket type of its own (see ServerConnection). */
    public sealed interface Endpoint {
    }

    /** A TCP port of a host: a name, an IPv4 address or an IPv6 one. */
    public record Tcp(String host, int port) implements Endpoint {
        public Tcp {
            if (host.isEmpty() || port < 1 || port > 65535) {
                throw new IllegalArgumentException("bad server " + host + ":" + port);
            }
        }

        @Override
        public String toString() {
            return (host.contains(":") ? "[" + host + "]" : host) + ":" + port;
        }
    }

    /**
     * A Unix domain socket: for a memcached beside the gateway, whose requests then skip the TCP stack (and the
     * kernel's loopback work) on both sides.
     */
    public record UnixSocket(String path) implements Endpoint {
        public UnixSocket {
            if (!path.startsWith("/")) {
                throw new IllegalArgumentException("a socket path must be absolute: '" + path + "'");
            }
            if (path.getBytes(StandardCharsets.UTF_8).length > MAX_SOCKET_PATH) {
                throw new IllegalArgumentException("socket path longer than " + MAX_SOCKET_PATH + " bytes: '"
                        + path + "'");
            }
        }

        @Override
        public String toString() {
            return path;
        }
    }

    public ServerAddress {
        if (weight < 1) {
            throw new IllegalArgumentException("bad weight " + weight + " of server " + endpoint);
        }
        if (name == null) {
            name = defaultName(endpoint);
        }
    }

    /**
     * twemproxy's name for an unnamed server: {@code host:port}, only {@code host} on 11211; a socket has port 0
     * there, and its name is the path followed by the colon that would have preceded the port.
     */
    private static String defaultName(Endpoint endpoint) {
        if (endpoint instanceof Tcp tcp) {
            return tcp.port() == DEFAULT_PORT ? tcp.host() : tcp.toString();
        }
        return endpoint + ":";
    }

    /** A server on a TCP port, its ketama name given or (null) the default one. */
    public ServerAddress(String host, int port, int weight, String name) {
        this(new Tcp(host, port), weight, name);
    }

    /** A server on a TCP port, by its default ketama name. */
    public ServerAddress(String host, int port, int weight) {
        this(new Tcp(host, port), weight, null);
    }

    /**
     * Parses {@code host:port[:weight][ name],...} and {@code /path[:weight][ name]}; the port defaults to 11211
     * and the weight to 1.
     */
    public static List<ServerAddress> parseList(String text) {
        List<ServerAddress> servers = new ArrayList<>();
        for (String entry : text.split(",")) {
            if (!entry.isBlank()) {
                servers.add(parse(entry.strip()));
            }
        }
        if (servers.isEmpty()) {
            throw new IllegalArgumentException("no servers in '" + text + "'");
        }
        return servers;
    }

    static ServerAddress parse(String text) {
        String[] words = text.split("\\s+");
        if (words.length > 2) {
            throw new IllegalArgumentException("expected host:port[:weight][ name] or /path[:weight][ name], got '"
                    + text + "'");
        }
        String entry = words[0];
        String name = words.length == 2 ? words[1] : null;
        if (entry.startsWith("/")) {
            return parseSocket(entry, name);
        }
        String host;
        String rest;
        if (entry.startsWith("[")) {
            int close = entry.indexOf(']');
            if (close < 0) {
                throw new IllegalArgumentException("unclosed [ in server '" + entry + "'");
            }
            host = entry.substring(1, close);
            rest = entry.substring(close + 1);
            if (!rest.isEmpty() && !rest.startsWith(":")) {
                throw new IllegalArgumentException("expected :port after ] in server '" + entry + "'");
            }
            rest = rest.isEmpty() ? "" : rest.substring(1);
        } else {
            int colon = entry.indexOf(':');
            host = colon < 0 ? entry : entry.substring(0, colon);
            rest = colon < 0 ? "" : entry.substring(colon + 1);
        }
        if (host.contains("/")) {
            // Most likely a socket's path without its leading slash, which would otherwise be looked up as a host.
            throw new IllegalArgumentException("a host name holds no '/' (a socket's path is absolute): '" + entry
                    + "'");
        }
        String[] parts = rest.isEmpty() ? new String[0] : rest.split(":", -1);
        if (parts.length > 2) {
            throw new IllegalArgumentException("too many fields in server '" + entry + "'");
        }
        int port = parts.length > 0 ? number(parts[0], entry) : DEFAULT_PORT;
        int weight = parts.length > 1 ? number(parts[1], entry) : 1;
        return new ServerAddress(host, port, weight, name);
    }

    /** A port or a weight: decimal digits only (Integer.parseInt would take a sign too). */
    private static boolean isNumber(String text) {
        return text.matches("[0-9]{1,9}");
    }

    private static int number(String text, String entry) {
        if (!isNumber(text)) {
            throw new IllegalArgumentException("bad port or weight in server '" + entry + "'");
        }
        return Integer.parseInt(text);
    }

    /**
     * {@code /path[:weight]}: what follows the last colon is the weight, so a path that holds a colon itself (which
     * twemproxy takes in no form) is written with its weight after it.
     */
    private static ServerAddress parseSocket(String entry, String name) {
        int colon = entry.lastIndexOf(':');
        if (colon < 0) {
            return new ServerAddress(new UnixSocket(entry), 1, name);
        }
        String weight = entry.substring(colon + 1);
        if (!isNumber(weight)) {
            throw new IllegalArgumentException("bad weight in server '" + entry + "' (a path holding a colon is "
                    + "written with its weight: /path:1)");
        }
        return new ServerAddress(new UnixSocket(entry.substring(0, colon)), Integer.parseInt(weight), name);
    }

    @Override
    public String toString() {
        return endpoint.toString();
    }
}
