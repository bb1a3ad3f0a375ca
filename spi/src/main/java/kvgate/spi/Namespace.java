package kvgate.spi;

import java.util.regex.Pattern;

/**
 * Where keys live: a Couchbase collection, an MPDB collection or node bucket, the okuyama keyspace. Two operations
 * address the same item only when both their namespace and their key are equal, so a backend must keep namespaces
 * apart (one map, key prefix or table each).
 *
 * <p>Names are 1 to 200 characters of {@code A-Z a-z 0-9 _ - % . : /}, so a backend can use them in file names,
 * key prefixes or map names without escaping.
 *
 * @param name the namespace's name, e.g. {@code default}
 */
public record Namespace(String name) {
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_%.:/-]{1,200}");

    /** The namespace a client lands in when its protocol names none: the default collection of the default bucket. */
    public static final Namespace DEFAULT = new Namespace("default");

    public Namespace {
        if (name == null || !NAME.matcher(name).matches()) {
            throw new IllegalArgumentException(
                    "namespace name must be 1-200 characters of A-Z a-z 0-9 _ - % . : /, not: " + name);
        }
    }

    /*
     * equals and hashCode written out: a record's own are bound at run time through method handles, which the JIT
     * inlines into a large hot method only when its budget allows, and every request compares its namespace.
     */
    @Override
    public boolean equals(Object other) {
        return other == this || other instanceof Namespace namespace && name.equals(namespace.name);
    }

    @Override
    public int hashCode() {
        return name.hashCode();
    }

    /**
     * Whether this is one of the gateway's own namespaces, whose names start with {@code kvgate:}: the records of its
     * generic layer (tags' and n-grams' key lists, key directories), collections manifests, counters. A store that
     * evicts (a cache with a memory limit) should spare them where it can: losing one loses what it lists, not one
     * item.
     */
    public boolean isGatewaysOwn() {
        return name.startsWith("kvgate:");
    }

    @Override
    public String toString() {
        return name;
    }
}
