package kvgate.collections;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import kvgate.config.ConfigurationException;
import kvgate.spi.Setting;
import kvgate.spi.Settings;

/** The keys of the buckets and their collections manifests, which every gateway keeps (see {@link BucketManifests}). */
public final class CollectionsSettings {
    public static final String BUCKETS = "buckets";
    public static final String MAX_SCOPES = "collections.max_scopes";
    public static final String MAX_COLLECTIONS = "collections.max_collections";
    public static final String REFRESH_MS = "collections.refresh_ms";

    /** These keys, in the order docs/configuration.md lists them. */
    public static final List<Setting> ALL = List.of(
            Setting.text(BUCKETS, "default",
                    "comma-separated bucket names that SelectBucket (0x89) accepts, each with its own collections "
                    + "manifest; a connection uses `default` until it selects one, when `default` is listed"),
            Setting.integer(MAX_SCOPES, 1000, 1, 1_000_000, "most scopes a bucket's manifest may define (more: "
                    + "0x0004)"),
            Setting.integer(MAX_COLLECTIONS, 1000, 1, 1_000_000,
                    "most collections over all scopes of a bucket's manifest (more: 0x0004)"),
            Setting.integer(REFRESH_MS, 1000, 10, 3_600_000,
                    "a manifest set through another gateway on the same backend is in force here within this many "
                    + "milliseconds"));

    private static final Pattern BUCKET_NAME = Pattern.compile("[A-Za-z0-9_.%-]{1,100}");

    private CollectionsSettings() {
    }

    /** The configured bucket names: 1 to 100 characters of {@code A-Z a-z 0-9 _ . % -} each, as Couchbase allows. */
    public static Set<String> buckets(Settings settings) throws ConfigurationException {
        Set<String> buckets = new LinkedHashSet<>();
        for (String entry : settings.text(BUCKETS).split(",")) {
            String name = entry.strip();
            if (name.isEmpty()) {
                continue;
            }
            if (!BUCKET_NAME.matcher(name).matches()) {
                throw new ConfigurationException(BUCKETS + " = " + settings.text(BUCKETS) + ": bucket name '" + name
                        + "' is invalid; expected 1 to 100 characters of A-Z a-z 0-9 _ . % -");
            }
            buckets.add(name);
        }
        return buckets;
    }

    /** The manifests' limits as configured. */
    public static ManifestLimits limits(Settings settings) {
        return new ManifestLimits(settings.intValue(MAX_SCOPES), settings.intValue(MAX_COLLECTIONS));
    }
}
