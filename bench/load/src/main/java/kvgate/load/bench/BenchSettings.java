package kvgate.load.bench;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * What a bench run is asked to do, from BENCH_* environment variables (bin/bench --help lists them), each with its
 * default.
 */
public record BenchSettings(double seconds, int rounds, int warmup, int rewarm, List<String> levels, int autoBatch,
                            int toolThreads, String toolProtocol, int serverThreads, boolean pin, String javaOpts,
                            String ioTransport, List<String> loadLevels, int loadThreads, double protocolSeconds,
                            String protocolLevel, long memoryItems, String memoryJavaOpts, String memcachedOpts,
                            int budgetSeconds, int halfRounds, double halfSeconds, double halfRewarm, Path out,
                            int keySize, int valueSize, int getPercent, int loadKeys, String loadJavaOpts) {

    /** The settings the environment gives, the defaults for the rest; {@code root} is the project's directory. */
    public static BenchSettings from(Map<String, String> env, Path root, int cores) {
        int toolThreads = integer(env, "BENCH_THREADS", 1);
        return new BenchSettings(
                integer(env, "BENCH_SECONDS", 3), // whole seconds: memaslap takes no fraction
                integer(env, "BENCH_ROUNDS", 2),
                integer(env, "BENCH_WARMUP", 2),
                integer(env, "BENCH_REWARM", 1), // whole seconds too
                words(env.getOrDefault("BENCH_LEVELS", "32 32x16")),
                integer(env, "BENCH_BATCH", 16),
                toolThreads,
                env.getOrDefault("BENCH_PROTOCOL", "text"),
                integer(env, "BENCH_SERVER_THREADS", Math.max(1, cores - toolThreads)),
                "1".equals(env.getOrDefault("BENCH_PIN", "1")),
                env.getOrDefault("BENCH_JAVA_OPTS", "-Xms1g -Xmx1g -Xmn64m -XX:+AlwaysPreTouch -XX:+UseParallelGC"),
                env.getOrDefault("BENCH_IO_TRANSPORT", "auto"),
                words(env.getOrDefault("BENCH_LOAD_LEVELS", "32x1 32x16")),
                integer(env, "BENCH_LOAD_THREADS", 1),
                decimal(env, "BENCH_PROTOCOL_SECONDS", 3),
                env.getOrDefault("BENCH_PROTOCOL_LEVEL", "16x8"),
                integer(env, "BENCH_MEMORY_ITEMS", 1_000_000),
                env.getOrDefault("BENCH_MEMORY_JAVA_OPTS", "-Xmx300m -Xmn40m -XX:+UseParallelGC"),
                env.getOrDefault("BENCH_MEMCACHED_OPTS", ""),
                integer(env, "BENCH_BUDGET", 450),
                integer(env, "BENCH_HALF_ROUNDS", 5),
                decimal(env, "BENCH_HALF_SECONDS", 1.5),
                decimal(env, "BENCH_HALF_REWARM", 0.5),
                Path.of(env.getOrDefault("BENCH_OUT", root.resolve("target").resolve("bench").toString())),
                32, 100, 90, 10_000, "-Xms256m -Xmx512m -XX:+UseSerialGC");
    }

    private static int integer(Map<String, String> env, String name, int otherwise) {
        String value = env.get(name);
        try {
            return value == null || value.isBlank() ? otherwise : Integer.parseInt(value.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + " must be a whole number, not '" + value + "'");
        }
    }

    private static double decimal(Map<String, String> env, String name, double otherwise) {
        String value = env.get(name);
        try {
            return value == null || value.isBlank() ? otherwise : Double.parseDouble(value.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + " must be a number, not '" + value + "'");
        }
    }

    /** The cores each server can use: its threads, on a machine of {@code machineCores}. */
    public int serverCores(int machineCores) {
        return Math.min(serverThreads, machineCores);
    }

    /** A setting's number as it was given: 3 for 3.0, 1.5 as it is. */
    public static String number(double value) {
        return value == Math.rint(value) && Math.abs(value) < 1e15 ? Long.toString((long) value)
                : Double.toString(value);
    }

    /** The words of a setting that lists several, separated by blanks. */
    public static List<String> words(String text) {
        return Arrays.stream(text.trim().split("\\s+")).filter(word -> !word.isEmpty()).toList();
    }

    /** A level's two numbers: "32x16" is {32, 16}, "32" is {32, 1}. */
    public static int[] level(String level) {
        int x = level.indexOf('x');
        return x < 0 ? new int[] {Integer.parseInt(level), 1}
                : new int[] {Integer.parseInt(level.substring(0, x)), Integer.parseInt(level.substring(x + 1))};
    }
}
