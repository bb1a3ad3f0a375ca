package kvgate.okuyama;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class NGramsTest {

    @Test
    void gramsOfEachLengthDistinctShorterFirst() {
        assertEquals(List.of("a", "b", "ab", "ba", "aba"), List.copyOf(NGrams.of("aba", 1, 3)));
        assertEquals(List.of("abc", "bcd", "abcd"), List.copyOf(NGrams.of("abcd", 3, 5)));
        assertEquals(List.of(), List.copyOf(NGrams.of("", 1, 3)));
    }

    @Test
    void charactersAreCodePointsNotBytesOrUtf16Units() {
        // U+20BB7 is one character outside the Basic Multilingual Plane: two UTF-16 units, four UTF-8 bytes.
        String text = "\uD842\uDFB7野家";
        assertEquals(List.of("\uD842\uDFB7野", "野家"), List.copyOf(NGrams.of(text, 2, 2)));
    }

    @Test
    void theCountIsOfEveryRunRepeatsIncludedInCharacters() {
        assertEquals(6, NGrams.count("aba", 1, 3), "3 + 2 + 1 runs, though only 5 distinct");
        assertEquals(NGrams.of("abcd", 1, 4).size(), NGrams.count("abcd", 1, 4), "no repeats: every run distinct");
        assertEquals(3, NGrams.count("\uD842\uDFB7\u91CE\u5BB6", 1, 1), "code points, not UTF-16 units");
        assertEquals(0, NGrams.count("ab", 3, 5), "shorter than the shortest run");
    }

    @Test
    void aWordShorterThanNIsLookedUpWhole() {
        assertEquals(Set.of("ab"), NGrams.lookup("ab", 3));
        assertEquals(Set.of("abc", "bcd"), NGrams.lookup("abcd", 3));
    }
}
