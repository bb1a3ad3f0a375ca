package kvgate.okuyama;

import java.util.LinkedHashSet;
import java.util.Set;

/**
 * The n-grams of a text: its runs of n characters (Unicode code points, not bytes or UTF-16 units). The full-text
 * index of {@link Operation.Index} and {@link Operation.Search} is defined by them, so every backend that keeps the
 * index itself, and the gateway's generic one, cut the same grams.
 */
public final class NGrams {
    private NGrams() {
    }

    /** Every distinct run of {@code min} to {@code max} characters of {@code text}, shorter runs first. */
    public static Set<String> of(String text, int min, int max) {
        int[] points = text.codePoints().toArray();
        Set<String> grams = new LinkedHashSet<>();
        for (int n = min; n <= max && n <= points.length; n++) {
            for (int start = 0; start + n <= points.length; start++) {
                grams.add(new String(points, start, n));
            }
        }
        return grams;
    }

    /**
     * How many runs of {@code min} to {@code max} characters {@code text} has, counted with repeats: the work
     * {@link #of} does before it keeps each distinct run once, known without doing it.
     */
    public static long count(String text, int min, int max) {
        long length = text.codePointCount(0, text.length());
        long count = 0;
        for (int n = min; n <= max && n <= length; n++) {
            count += length - n + 1;
        }
        return count;
    }

    /** The grams a word is looked up by: its runs of {@code n} characters, or the whole word when shorter. */
    public static Set<String> lookup(String word, int n) {
        int length = word.codePointCount(0, word.length());
        return length <= n ? Set.of(word) : of(word, n, n);
    }
}
