package kvgate.collections;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The scope and collection naming rules of both collections documents. */
class CollectionNameTest {

    private static void valid(String name) {
        assertNull(CollectionName.problem(name), () -> "'" + name + "' should be valid");
    }

    private static void invalid(String name) {
        assertNotNull(CollectionName.problem(name), () -> "'" + name + "' should be refused");
    }

    @ParameterizedTest
    @ValueSource(strings = {"a", "Z", "9", "brewery", "App1", "c1", "beer-sample", "a_b", "a%b", "a%", "a_",
            "-dash", "0start", "ABCxyz019_-%"})
    void acceptsUserNames(String name) {
        valid(name);
    }

    @ParameterizedTest
    @ValueSource(strings = {"_", "_default", "_system", "_a$b", "_$", "_%", "_-", "__", "_x$y%z-0_"})
    void acceptsSystemNamesStartingWithUnderscoreIncludingDollar(String name) {
        valid(name);
    }

    @ParameterizedTest
    @ValueSource(strings = {"$", "$a", "$default", "$_x"})
    void refusesNamesWithTheReservedDollarPrefix(String name) {
        invalid(name);
    }

    @ParameterizedTest
    @ValueSource(strings = {"%", "%a", "%_b", "%$"})
    void refusesNamesStartingWithPercent(String name) {
        invalid(name);
    }

    @ParameterizedTest
    @ValueSource(strings = {"a$", "a$b", "brew$ery", "0$"})
    void refusesDollarInUserNames(String name) {
        invalid(name);
    }

    @ParameterizedTest
    @ValueSource(strings = {"a.b", ".", "a b", " a", "a ", "a/b", "a:b", "a*", "a+b", "a@b", "a#b", "a!b",
            "a\"b", "a'b", "a\\b", "a\tb", "a\nb", "a\u0000b", "(a)", "a,b", "a=b", "a~b", "_a.b", "_a b", "_a/b"})
    void refusesCharactersOutsideTheAllowedSet(String name) {
        invalid(name);
    }

    @ParameterizedTest
    @ValueSource(strings = {"caf\u00e9", "\u00e9", "_\u00e9", "a\u00a0b", "\u0430bc", "a\uff10", "\ud83c\udf7a",
            "beer\ud83c\udf7a"})
    void refusesNonAsciiNames(String name) {
        invalid(name);
    }

    @Test
    void refusesTheEmptyName() {
        invalid("");
    }

    @Test
    void acceptsNamesUpTo251Characters() {
        assertEquals(251, CollectionName.MAX_LENGTH);
        valid("a".repeat(251));
        valid("_" + "$".repeat(250));
    }

    @Test
    void refusesNamesOf252CharactersOrMore() {
        invalid("a".repeat(252));
        invalid("_".repeat(252));
        invalid("a".repeat(1000));
    }

    @Test
    void acceptsNamesLongerThanTheOlderDocuments30Characters() {
        for (int length = 30; length <= 251; length++) {
            valid("c".repeat(length));
            valid("_" + "s".repeat(length - 1));
        }
    }

    @Test
    void refusesANonAsciiNameWhoseCharacterCountIsWithinTheLimit() {
        // 200 two-byte characters: 200 characters but 400 bytes.
        invalid("\u00e9".repeat(200));
    }

    @Test
    void theDefaultNameIsAValidSystemName() {
        assertEquals("_default", CollectionName.DEFAULT);
        valid(CollectionName.DEFAULT);
    }
}
