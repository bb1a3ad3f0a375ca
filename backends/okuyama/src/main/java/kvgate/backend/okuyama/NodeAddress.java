package kvgate.backend.okuyama;

import java.util.ArrayList;
import java.util.List;

/** Where an okuyama MasterNode or DataNode listens: {@code host:port}. */
record NodeAddress(String host, int port) {

    NodeAddress {
        if (host.isEmpty()) {
            throw new IllegalArgumentException("a node needs a host");
        }
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("port " + port + " is not 1-65535");
        }
    }

    /** Parses a comma-separated list of {@code host:port}; empty text is an empty list. */
    static List<NodeAddress> parseList(String text) {
        List<NodeAddress> nodes = new ArrayList<>();
        for (String part : text.split(",")) {
            String node = part.strip();
            if (node.isEmpty()) {
                continue;
            }
            int colon = node.lastIndexOf(':');
            if (colon < 0) {
                throw new IllegalArgumentException("'" + node + "' is not host:port");
            }
            String host = node.substring(0, colon);
            if (host.startsWith("[") && host.endsWith("]")) {
                host = host.substring(1, host.length() - 1); // an IPv6 address
            }
            int port;
            try {
                port = Integer.parseInt(node.substring(colon + 1));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("'" + node + "' has no port number");
            }
            try {
                nodes.add(new NodeAddress(host, port));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("'" + node + "': " + e.getMessage());
            }
        }
        return nodes;
    }

    /**
     * Parses DataNodes with their replicas: comma-separated entries, each a {@code host:port} or several joined by
     * {@code |}, one node and the nodes holding the same keys (its sub and third DataNodes), tried in that order.
     */
    static List<List<NodeAddress>> parseReplicated(String text) {
        List<List<NodeAddress>> nodes = new ArrayList<>();
        for (String entry : text.split(",")) {
            List<NodeAddress> replicas = parseList(entry.replace('|', ','));
            if (!replicas.isEmpty()) {
                nodes.add(List.copyOf(replicas));
            }
        }
        return nodes;
    }

    @Override
    public String toString() {
        return host.indexOf(':') >= 0 ? "[" + host + "]:" + port : host + ":" + port;
    }
}
