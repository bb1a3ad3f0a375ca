package kvgate.mpdb;

import java.nio.charset.StandardCharsets;
import kvgate.spi.Namespace;

/**
 * Where MPDB's collections and node buckets live in the operation stream: collection {@code c} is the namespace
 * {@code <prefix>c}, node {@code n}'s private bucket is {@code <prefix>node:n}. Bytes of a collection name that a
 * namespace name cannot hold, and {@code :} and {@code %}, are written {@code %XX}, so no collection can take a node
 * bucket's name and two collections never share one.
 *
 * <p>With an empty prefix the collection {@code default} is the namespace memcached clients without collections
 * (and, by default, okuyama clients) use, which is how one piece of data is read through all three protocols.
 */
public final class MpdbNamespaces {
    /** The collection of keys without a prefix. */
    public static final String GLOBAL = "global";
    private static final int MAX_NAME = 200;

    private final String prefix;

    /** @throws IllegalArgumentException when the prefix cannot start a namespace name */
    public MpdbNamespaces(String prefix) {
        if (prefix.startsWith("kvgate:")) {
            throw new IllegalArgumentException("namespaces starting with kvgate: are the gateway's own");
        }
        new Namespace(prefix + GLOBAL); // checks the prefix's characters and length
        this.prefix = prefix;
    }

    /** The namespace of a collection; an error message names what is wrong with the name. */
    public Namespace collection(String name) throws BadName {
        if (name.isEmpty()) {
            throw new BadName("an empty collection name");
        }
        StringBuilder escaped = new StringBuilder(prefix);
        for (byte b : name.getBytes(StandardCharsets.UTF_8)) {
            int c = b & 0xff;
            if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-'
                    || c == '.' || c == '/') {
                escaped.append((char) c);
            } else {
                escaped.append('%').append(Character.toUpperCase(Character.forDigit(c >> 4, 16)))
                        .append(Character.toUpperCase(Character.forDigit(c & 0xf, 16)));
            }
        }
        if (escaped.length() > MAX_NAME) {
            throw new BadName("collection name \"" + name + "\" is too long");
        }
        return new Namespace(escaped.toString());
    }

    /** The private bucket of a node. */
    public Namespace bucket(long nodeid) {
        return new Namespace(prefix + "node:" + Long.toUnsignedString(nodeid));
    }

    /** A collection name no namespace can be made of. */
    public static final class BadName extends Exception {
        BadName(String message) {
            super(message, null, false, false);
        }
    }
}
