package kvgate.collections;

/** How many scopes, and collections over all scopes, one bucket's manifest may define. */
public record ManifestLimits(int maxScopes, int maxCollections) {
    /** For manifests read back from the backend: they were checked when set, maybe under other limits. */
    public static final ManifestLimits NONE = new ManifestLimits(Integer.MAX_VALUE, Integer.MAX_VALUE);
}
