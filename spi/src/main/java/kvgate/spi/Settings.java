package kvgate.spi;

import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;

/**
 * Validated configuration values by key, every declared setting present (defaults filled in). The typed getters
 * can therefore not fail on a declared key; asking for an undeclared key is a programming error.
 */
public final class Settings {
    private final Map<String, String> values;

    public Settings(Map<String, String> values) {
        this.values = new TreeMap<>(values);
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
        return new Settings(inner);
    }

    @Override
    public String toString() {
        return values.toString();
    }
}
