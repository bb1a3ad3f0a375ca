package kvgate.spi;

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
    void aWordShorterThanNIsLookedUpWhole() {
        assertEquals(Set.of("ab"), NGrams.lookup("ab", 3));
        assertEquals(Set.of("abc", "bcd"), NGrams.lookup("abcd", 3));
    }
}
