package kvgate.config;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import kvgate.spi.Setting;
import kvgate.spi.Settings;

/**
 * The raw configuration: keys and values from the configuration file, then from {@code --key=value} arguments,
 * which override the file. Each value remembers where it came from, so an error can say so. Nothing here knows
 * which keys exist: {@link #resolve} checks the given values against the declared settings.
 */
public final class Configuration {
    /** The argument that names another configuration file; it is not itself a configuration key. */
    public static final String CONFIG_ARGUMENT = "--config=";

    private record Value(String text, String source) {
    }

    /** Where the configuration comes from: read at start, and again on each reload. */
    @FunctionalInterface
    public interface Source {
        Configuration read() throws ConfigurationException;
    }

    private final Map<String, Value> values;

    private Configuration(Map<String, Value> values) {
        this.values = values;
    }

    /** An empty configuration plus the given overrides, as if from the command line. For tests and embedding. */
    public static Configuration of(Map<String, String> overrides) {
        Map<String, Value> values = new LinkedHashMap<>();
        overrides.forEach((key, value) -> values.put(key, new Value(value, "the caller")));
        return new Configuration(values);
    }

    /**
     * Reads {@code file} (when it exists or was named explicitly) and applies the command-line arguments.
     *
     * @param defaultFile the file read unless an argument {@code --config=FILE} names another
     * @param arguments {@code --key=value} overrides and at most one {@code --config=FILE}
     */
    public static Configuration load(Path defaultFile, List<String> arguments) throws ConfigurationException {
        Path file = defaultFile;
        boolean named = false;
        List<String> overrides = new ArrayList<>();
        for (String argument : arguments) {
            if (argument.startsWith(CONFIG_ARGUMENT)) {
                file = Path.of(argument.substring(CONFIG_ARGUMENT.length()));
                named = true;
            } else {
                overrides.add(argument);
            }
        }
        Map<String, Value> values = new LinkedHashMap<>();
        if (file != null && (named || Files.exists(file))) {
            readFile(file, values);
        }
        for (String argument : overrides) {
            int equals = argument.indexOf('=');
            if (!argument.startsWith("--") || equals < 3) {
                throw new ConfigurationException("unrecognised argument '" + argument
                        + "': expected --key=value or --config=FILE");
            }
            values.put(argument.substring(2, equals).trim(),
                    new Value(argument.substring(equals + 1).trim(), "the command line"));
        }
        return new Configuration(values);
    }

    private static void readFile(Path file, Map<String, Value> values) throws ConfigurationException {
        List<String> lines;
        try {
            lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new ConfigurationException("cannot read configuration file " + file + ": " + e.getMessage());
        }
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i).strip();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            String where = file + " line " + (i + 1);
            int equals = line.indexOf('=');
            if (equals <= 0) {
                throw new ConfigurationException(where + ": expected 'key = value', found '" + line + "'");
            }
            values.put(line.substring(0, equals).strip(), new Value(line.substring(equals + 1).strip(), where));
        }
    }

    /**
     * Renames keys given under another accepted spelling to their own name.
     *
     * @param aliases alias -> key
     * @throws ConfigurationException when both spellings are given
     */
    public Configuration withAliases(Map<String, String> aliases) throws ConfigurationException {
        Map<String, Value> renamed = new LinkedHashMap<>();
        for (Map.Entry<String, Value> entry : values.entrySet()) {
            String key = aliases.getOrDefault(entry.getKey(), entry.getKey());
            Value earlier = renamed.put(key, entry.getValue());
            if (earlier != null) {
                throw new ConfigurationException(key + " is given twice, under two spellings (from "
                        + earlier.source() + " and " + entry.getValue().source() + ")");
            }
        }
        return new Configuration(renamed);
    }

    /** Every configured key, in the order given. */
    public Set<String> keys() {
        return Collections.unmodifiableSet(values.keySet());
    }

    /** The configured text of {@code key}, if any. */
    public Optional<String> get(String key) {
        return Optional.ofNullable(values.get(key)).map(Value::text);
    }

    /**
     * Checks every configured value of the declared settings and fills in defaults.
     *
     * @throws ConfigurationException naming every bad value, where it came from and what is allowed
     */
    public Settings resolve(Collection<Setting> declared) throws ConfigurationException {
        Map<String, String> resolved = new HashMap<>();
        Set<String> secrets = new HashSet<>();
        List<String> problems = new ArrayList<>();
        for (Setting setting : declared) {
            if (setting.kind() == Setting.Kind.SECRET) {
                secrets.add(setting.key());
            }
            Value value = values.get(setting.key());
            if (value == null) {
                resolved.put(setting.key(), setting.defaultValue());
                continue;
            }
            Optional<String> problem = setting.problem(value.text());
            if (problem.isPresent()) {
                problems.add("bad value '" + value.text() + "' for " + setting.key() + " (from " + value.source()
                        + "): " + problem.get());
            }
            resolved.put(setting.key(), value.text());
        }
        if (!problems.isEmpty()) {
            throw new ConfigurationException(String.join("\n", problems));
        }
        return new Settings(resolved, secrets);
    }

    /**
     * Fails when a configured key is not among {@code known}, naming each unknown key and where it came from. A key
     * of {@code retired} (key to what replaced it) is accepted when empty and refused with its replacement when not.
     */
    public void rejectUnknown(Set<String> known, Map<String, String> retired) throws ConfigurationException {
        List<String> unknown = values.entrySet().stream()
                .filter(entry -> !known.contains(entry.getKey()))
                .filter(entry -> !(retired.containsKey(entry.getKey()) && entry.getValue().text().isBlank()))
                .map(entry -> (retired.containsKey(entry.getKey())
                        ? "configuration key '" + entry.getKey() + "' is retired (" + retired.get(entry.getKey()) + ")"
                        : "unknown configuration key '" + entry.getKey() + "'")
                        + " (from " + entry.getValue().source() + ")"
                        + meant(entry.getKey(), known).map(key -> "; did you mean '" + key + "'?").orElse(""))
                .collect(Collectors.toList());
        if (!unknown.isEmpty()) {
            throw new ConfigurationException(String.join("\n", unknown));
        }
    }

    /**
     * The known key {@code key} was probably meant to be: the nearest by edit distance (a letter left out, added,
     * changed or two swapped), when it is near enough to be a slip rather than another word.
     */
    static Optional<String> meant(String key, Set<String> known) {
        String best = null;
        int bestDistance = Integer.MAX_VALUE;
        for (String candidate : known) {
            int distance = distance(key, candidate);
            if (distance < bestDistance || distance == bestDistance && candidate.compareTo(best) < 0) {
                best = candidate;
                bestDistance = distance;
            }
        }
        int allowed = Math.max(1, Math.min(3, key.length() / 5));
        return bestDistance <= allowed ? Optional.of(best) : Optional.empty();
    }

    /** Optimal string alignment distance: insertions, deletions, substitutions and swaps of neighbours cost 1. */
    private static int distance(String a, String b) {
        int[][] d = new int[a.length() + 1][b.length() + 1];
        for (int i = 0; i <= a.length(); i++) {
            d[i][0] = i;
        }
        for (int j = 0; j <= b.length(); j++) {
            d[0][j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            for (int j = 1; j <= b.length(); j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                d[i][j] = Math.min(Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + cost);
                if (i > 1 && j > 1 && a.charAt(i - 1) == b.charAt(j - 2) && a.charAt(i - 2) == b.charAt(j - 1)) {
                    d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
                }
            }
        }
        return d[a.length()][b.length()];
    }
}
