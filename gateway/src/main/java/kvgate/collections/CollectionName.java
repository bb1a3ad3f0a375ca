package kvgate.collections;

/**
 * The naming rules for scopes and collections. A user name is {@code A-Z a-z 0-9 _ - %} and does not start with
 * {@code _} or {@code %}; a system name starts with {@code _} and may also contain {@code $}; a name starting with
 * {@code $} is reserved. Length 1 to 251 bytes: the newer document's limit (the older said 30), so manifests of
 * both generations are accepted.
 */
public final class CollectionName {
    public static final int MAX_LENGTH = 251;
    /** The name of the default scope and of the default collection. */
    public static final String DEFAULT = "_default";

    private CollectionName() {
    }

    /** What is wrong with {@code name}, or null when it is a valid scope or collection name. */
    public static String problem(String name) {
        if (name.isEmpty() || name.length() > MAX_LENGTH) {
            return "name must be 1 to " + MAX_LENGTH + " characters: '" + name + "'";
        }
        char first = name.charAt(0);
        if (first == '$') {
            return "names starting with $ are reserved: '" + name + "'";
        }
        if (first == '%') {
            return "a name may not start with %: '" + name + "'";
        }
        boolean system = first == '_';
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            boolean allowed = c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9'
                    || c == '_' || c == '-' || c == '%' || system && c == '$';
            if (!allowed) {
                return "character '" + c + "' is not allowed in " + (system ? "a system" : "a user") + " name: '"
                        + name + "'";
            }
        }
        return null;
    }
}
