package kvgate.backend.memcached;

import java.util.ArrayList;
import java.util.List;

/**
 * One memcached server of the pool: {@code host:port[:weight][ name]}, an IPv6 host in brackets.
 *
 * @param weight its share of the keys, relative to the other servers' weights
 * @param name what ketama hashes to place the server's points: as in twemproxy ({@code - host:port:weight name})
 *     and libmemcached, {@code host:port} unless given, and only {@code host} when the port is 11211
 */
public record ServerAddress(String host, int port, int weight, String name) {
    public static final int DEFAULT_PORT = 11211;

    public ServerAddress {
        if (host.isEmpty() || port < 1 || port > 65535 || weight < 1) {
            throw new IllegalArgumentException("bad server " + host + ":" + port + ":" + weight);
        }
        if (name == null) {
            name = port == DEFAULT_PORT ? host : host + ":" + port;
        }
    }

    public ServerAddress(String host, int port, int weight) {
        this(host, port, weight, null);
    }

    /** Parses {@code host:port[:weight][ name],...}; the port defaults to 11211 and the weight to 1. */
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
            throw new IllegalArgumentException("expected host:port[:weight][ name], got '" + text + "'");
        }
        String entry = words[0];
        String name = words.length == 2 ? words[1] : null;
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
        String[] parts = rest.isEmpty() ? new String[0] : rest.split(":", -1);
        try {
            int port = parts.length > 0 ? Integer.parseInt(parts[0]) : DEFAULT_PORT;
            int weight = parts.length > 1 ? Integer.parseInt(parts[1]) : 1;
            if (parts.length > 2) {
                throw new IllegalArgumentException("too many fields in server '" + entry + "'");
            }
            return new ServerAddress(host, port, weight, name);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("bad port or weight in server '" + entry + "'");
        }
    }

    @Override
    public String toString() {
        return (host.contains(":") ? "[" + host + "]" : host) + ":" + port;
    }
}
