package kvgate.spi;

import java.util.Collections;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.TreeMap;

/**
 * Validated configuration values by key, every declared setting present (defaults filled in). The typed getters
 * can therefore not fail on a declared key; asking for an undeclared key is a programming error.
 */
public final class Settings {
    /** What {@link #shown()} gives for a secret that is set. */
    public static final String HIDDEN = "(set)";
    /** The user information of a URL ({@code redis://password@host}), which holds a password as often as not. */
    private static final Pattern URL_USER_INFO = Pattern.compile("([a-zA-Z][a-zA-Z0-9+.-]*://)[^/@\\s]+@");

    private final Map<String, String> values;
    private final Set<String> secrets;

    public Settings(Map<String, String> values) {
        this(values, Set.of());
    }

    /** @param secrets the keys whose values must not be shown ({@link Setting.Kind#SECRET}) */
    public Settings(Map<String, String> values, Set<String> secrets) {
        this.values = new TreeMap<>(values);
        this.secrets = Set.copyOf(secrets);
    }

    /**
     * All values, sorted by key, as they may be shown to whoever can ask (memcached's {@code stats settings}): a
     * secret as {@link #HIDDEN} when set, and the user information of a URL (where a password goes) as {@code ***}.
     */
    public Map<String, String> shown() {
        Map<String, String> shown = new TreeMap<>();
        values.forEach((key, value) -> shown.put(key, secrets.contains(key) ? (value.isEmpty() ? "" : HIDDEN)
                : URL_USER_INFO.matcher(value).replaceAll("$1***@")));
        return Collections.unmodifiableMap(shown);
    }

    /** All values, sorted by key. */
    public Map<String, String> asMap() {
        return Collections.unmodifiableMap(values);
    }

    public String text(String key) {
        String value = values.get(key);
        if (value == null) {
            throw new IllegalArgumentException("undeclared setting: " + key);
        }
        return value.trim();
    }

    /** A secret's value as given, spaces and all (a password may begin or end with one). */
    public String secret(String key) {
        String value = values.get(key);
        if (value == null) {
            throw new IllegalArgumentException("undeclared setting: " + key);
        }
        return value;
    }

    public long integer(String key) {
        return Setting.parseInteger(text(key));
    }

    public int intValue(String key) {
        return Math.toIntExact(integer(key));
    }

    public long size(String key) {
        return Setting.parseSize(text(key));
    }

    public boolean bool(String key) {
        return Boolean.parseBoolean(text(key));
    }

    /** The settings under {@code prefix}, with the prefix removed: {@code local.path} becomes {@code path}. */
    public Settings under(String prefix) {
        Map<String, String> inner = new TreeMap<>();
        values.forEach((key, value) -> {
            if (key.startsWith(prefix)) {
                inner.put(key.substring(prefix.length()), value);
            }
        });
        Set<String> innerSecrets = new HashSet<>();
        secrets.forEach(key -> {
            if (key.startsWith(prefix)) {
                innerSecrets.add(key.substring(prefix.length()));
            }
        });
        return new Settings(inner, innerSecrets);
    }

    /** The values as {@link #shown()} shows them: a log line must not carry a password either. */
    @Override
    public String toString() {
        return shown().toString();
    }
}
