package kvgate.load.bench;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The ratios of one kind a report part collects, round by round (a gateway's throughput over memcached's at a level,
 * say), and their table: each round's ratio, their mean and their median, per level, target and reference in the
 * order first met. The median is the figure to read with three rounds or more: one round far from the others cannot
 * move it.
 */
public final class Ratios {
    private final String what;
    private final String levelName;
    private final Map<Key, List<String>> rounds = new LinkedHashMap<>();

    /**
     * @param what what is compared, the table's title begins with it ("Throughput", "p99")
     * @param levelName the level column's heading ("clients × batch")
     */
    public Ratios(String what, String levelName) {
        this.what = what;
        this.levelName = levelName;
    }

    /**
     * Adds one round's ratio.
     *
     * @param level the level, as "32x16"
     * @param ratio the ratio as the report shows it, from {@link #ratio}: the mean and the median are of these
     *     rounded values, as the tables show them
     */
    public void add(String level, String target, String reference, String ratio) {
        rounds.computeIfAbsent(new Key(level, target, reference), key -> new ArrayList<>()).add(ratio);
    }

    public boolean isEmpty() {
        return rounds.isEmpty();
    }

    /** The title, the table and a blank line after it; "" when there is no ratio. */
    public String table() {
        if (rounds.isEmpty()) {
            return "";
        }
        StringBuilder table = new StringBuilder();
        table.append(what).append(" ratios, each round's (in the order measured), their mean and their median:\n\n");
        table.append("| ").append(levelName).append(" | target | × | rounds | mean | median |\n");
        table.append("|---:|---|---|---|---:|---:|\n");
        rounds.forEach((key, shown) -> {
            double[] values = shown.stream().mapToDouble(Double::parseDouble).toArray();
            table.append("| ").append(key.level()).append(" | ").append(key.target()).append(" | ")
                    .append(key.reference()).append(" | ").append(String.join(", ", shown)).append(" | ")
                    .append(fixed(mean(values), 2)).append(" | ").append(fixed(median(values), 2)).append(" |\n");
        });
        return table.append('\n').toString();
    }

    /** {@code a / b} with two decimals, as the tables show a ratio. */
    public static String ratio(double a, double b) {
        return fixed(a / b, 2);
    }

    /**
     * {@code value} with {@code decimals} decimals and a dot, rounded as C's printf rounds (the exact binary value,
     * ties to even), so that the figures are those the shell script's awk printed: String.format rounds 0.125 up
     * and 1.005 (a little under it in binary) up too.
     */
    static String fixed(double value, int decimals) {
        if (Double.isNaN(value)) {
            return "nan";
        } else if (Double.isInfinite(value)) {
            return value > 0 ? "inf" : "-inf";
        }
        return new BigDecimal(value).setScale(decimals, RoundingMode.HALF_EVEN).toPlainString();
    }

    private static double mean(double[] values) {
        double sum = 0;
        for (double value : values) {
            sum += value;
        }
        return sum / values.length;
    }

    private static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int middle = sorted.length / 2;
        return sorted.length % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
    }

    private record Key(String level, String target, String reference) {
    }
}
