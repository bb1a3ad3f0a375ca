package kvgate.spi;

import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * One configuration key, its default and what values it allows. The gateway declares its own keys this way and
 * backend factories declare theirs, so every key is validated the same way and start-up stops on a bad one with
 * a message naming the key, the value and what is allowed.
 *
 * @param key the key, without any backend prefix
 * @param defaultValue the value when none is configured (always itself valid)
 * @param description what the key means, in Markdown (code marks and links to the docs pages): the configuration
 *     reference, the shipped configuration's comments and {@code bin/gateway --help} are written from it
 * @param kind what sort of value
 * @param min smallest allowed number (for {@link Kind#INTEGER} and {@link Kind#SIZE})
 * @param max largest allowed number (for {@link Kind#INTEGER} and {@link Kind#SIZE})
 * @param choices the allowed words (for {@link Kind#CHOICE})
 */
public record Setting(String key, String defaultValue, String description, Kind kind, long min, long max,
                      List<String> choices) {

    /** The sorts of value a setting can take. */
    public enum Kind {
        /** Any text, including empty. */
        TEXT,
        /** A decimal integer between min and max. */
        INTEGER,
        /** A byte count: an integer with an optional k, m or g suffix (powers of 1024), between min and max. */
        SIZE,
        /** {@code true} or {@code false}. */
        BOOLEAN,
        /** One of the listed words. */
        CHOICE,
        /**
         * Any text, including empty, that must not be shown: a password. The gateway's listings of its configuration
         * ({@code stats settings}) say only whether it is set.
         */
        SECRET
    }

    public Setting {
        choices = List.copyOf(choices);
        Optional<String> problem = problemWith(key, defaultValue, kind, min, max, choices);
        if (problem.isPresent()) {
            throw new IllegalArgumentException("default of " + key + " is itself invalid: " + problem.get());
        }
    }

    public static Setting text(String key, String defaultValue, String description) {
        return new Setting(key, defaultValue, description, Kind.TEXT, 0, 0, List.of());
    }

    public static Setting integer(String key, long defaultValue, long min, long max, String description) {
        return new Setting(key, Long.toString(defaultValue), description, Kind.INTEGER, min, max, List.of());
    }

    public static Setting size(String key, String defaultValue, long min, long max, String description) {
        return new Setting(key, defaultValue, description, Kind.SIZE, min, max, List.of());
    }

    public static Setting bool(String key, boolean defaultValue, String description) {
        return new Setting(key, Boolean.toString(defaultValue), description, Kind.BOOLEAN, 0, 0, List.of());
    }

    /** A secret: any text, empty by default, never shown (see {@link Kind#SECRET}). */
    public static Setting secret(String key, String description) {
        return new Setting(key, "", description, Kind.SECRET, 0, 0, List.of());
    }

    public static Setting choice(String key, String defaultValue, String description, String... choices) {
        return new Setting(key, defaultValue, description, Kind.CHOICE, 0, 0, List.of(choices));
    }

    /** The same setting under another key: how a backend's {@code path} becomes {@code local.path}. */
    public Setting withKey(String newKey) {
        return new Setting(newKey, defaultValue, description, kind, min, max, choices);
    }

    /** What is wrong with {@code value} for this setting, described as what is allowed; empty when it is fine. */
    public Optional<String> problem(String value) {
        return problemWith(key, value, kind, min, max, choices);
    }

    /** What values this setting allows, in words. */
    public String allowed() {
        return describe(kind, min, max, choices);
    }

    private static String describe(Kind kind, long min, long max, List<String> choices) {
        return switch (kind) {
            case TEXT, SECRET -> "any text";
            case INTEGER -> "an integer from " + min + " to " + max;
            case SIZE -> "a size in bytes from " + min + " to " + max + " (suffix k, m or g allowed)";
            case BOOLEAN -> "true or false";
            case CHOICE -> "one of " + String.join(", ", choices);
        };
    }

    private static Optional<String> problemWith(String key, String value, Kind kind, long min, long max,
                                                List<String> choices) {
        if (value == null) {
            return Optional.of("no value");
        }
        boolean fine = switch (kind) {
            case TEXT, SECRET -> true;
            case INTEGER -> inRange(parseInteger(value), min, max);
            case SIZE -> inRange(parseSize(value), min, max);
            case BOOLEAN -> value.equals("true") || value.equals("false");
            case CHOICE -> choices.contains(value);
        };
        return fine ? Optional.empty() : Optional.of("expected " + describe(kind, min, max, choices));
    }

    private static boolean inRange(Long number, long min, long max) {
        return number != null && number >= min && number <= max;
    }

    static Long parseInteger(String value) {
        try {
            return Long.parseLong(value.trim());
        } catch (NumberFormatException e) {
            return null;
        }
    }

    static Long parseSize(String value) {
        String text = value.trim().toLowerCase(Locale.ROOT);
        long unit = 1;
        if (!text.isEmpty()) {
            char last = text.charAt(text.length() - 1);
            unit = switch (last) {
                case 'k' -> 1L << 10;
                case 'm' -> 1L << 20;
                case 'g' -> 1L << 30;
                default -> 1;
            };
            if (unit != 1) {
                text = text.substring(0, text.length() - 1);
            }
        }
        Long number = parseInteger(text);
        if (number == null || number < 0 || number > Long.MAX_VALUE / unit) {
            return null;
        }
        return number * unit;
    }
}
