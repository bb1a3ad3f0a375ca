package kvgate.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class SettingTest {

    private static final Setting THREADS = Setting.integer("threads", 4, 1, 64, "worker threads");
    private static final Setting MAX_ITEM = Setting.size("max_item_size", "1m", 1, 1L << 30, "largest value");
    private static final Setting VERBOSE = Setting.bool("verbose", false, "log every request");
    private static final Setting MODE = Setting.choice("mode", "fast", "how to run", "fast", "safe");

    private static long size(String value) {
        assertEquals(Optional.empty(), MAX_ITEM.problem(value), value);
        return new Settings(Map.of("s", value)).size("s");
    }

    @Test
    void secretsAreAnyTextAndShownOnlyAsSetOrNotWhileUrlsLoseTheirUserInformation() {
        Setting password = Setting.secret("sasl_password", "the password");
        assertEquals(Setting.Kind.SECRET, password.kind());
        assertEquals("", password.defaultValue());
        assertEquals(Optional.empty(), password.problem("p@ss word:,="));
        Settings settings = new Settings(Map.of("sasl_password", "hunter2", "empty_password", "",
                "url", "redis://hunter2@cache:6379/0", "urls", "rediss://user:pw@a:1,redis://b:2",
                "plain", "user@example"), Set.of("sasl_password", "empty_password"));
        Map<String, String> shown = settings.shown();
        assertEquals(Settings.HIDDEN, shown.get("sasl_password"));
        assertEquals("", shown.get("empty_password"));
        assertEquals("redis://***@cache:6379/0", shown.get("url"));
        assertEquals("rediss://***@a:1,redis://b:2", shown.get("urls"));
        assertEquals("user@example", shown.get("plain"));
        assertFalse(shown.toString().contains("hunter2") || shown.toString().contains("pw@"), shown.toString());
        assertEquals("hunter2", settings.text("sasl_password"), "the value itself is the backend's to use");
    }

    @ParameterizedTest
    @ValueSource(strings = {"1", "4", "64", " 7 "})
    void integerInsideRangeIsAccepted(String value) {
        assertEquals(Optional.empty(), THREADS.problem(value));
    }

    @ParameterizedTest
    @ValueSource(strings = {"0", "65", "-1", "abc", "", "4.5", "9223372036854775808"})
    void integerOutsideRangeOrNotANumberIsRejected(String value) {
        assertTrue(THREADS.problem(value).isPresent(), value);
    }

    @Test
    void integerProblemNamesTheAllowedRange() {
        String problem = THREADS.problem("65").orElseThrow();
        assertTrue(problem.contains("1") && problem.contains("64"), problem);
        assertTrue(problem.contains("integer"), problem);
        assertEquals(THREADS.allowed(), problem.replaceFirst("^expected ", ""));
    }

    @Test
    void missingValueIsAProblem() {
        assertTrue(THREADS.problem(null).isPresent());
        assertTrue(Setting.text("t", "", "text").problem(null).isPresent());
    }

    @Test
    void sizeWithoutSuffixIsBytes() {
        assertEquals(1234, size("1234"));
    }

    @Test
    void sizeSuffixesArePowersOf1024() {
        assertEquals(1024, size("1k"));
        assertEquals(1_048_576, size("1m"));
        assertEquals(1_073_741_824, size("1g"));
        assertEquals(3L << 20, size("3m"));
    }

    @Test
    void sizeSuffixIsCaseInsensitive() {
        assertEquals(1L << 20, size("1M"));
        assertEquals(2L << 10, size("2K"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"k", "1t", "1.5m", "-1k", "m1", "", "0", "2g", "1073741825",
            "9223372036854775807k", "9007199254740992g"})
    void sizeThatIsMalformedOrOutOfRangeIsRejected(String value) {
        assertTrue(MAX_ITEM.problem(value).isPresent(), value);
    }

    @Test
    void sizeAtTheUpperBoundIsAccepted() {
        assertEquals(1L << 30, size("1g"));
        assertEquals(1L << 30, size("1048576k"));
    }

    @Test
    void sizeProblemNamesRangeAndSuffixes() {
        String problem = MAX_ITEM.problem("2g").orElseThrow();
        assertTrue(problem.contains(Long.toString(1L << 30)), problem);
        assertTrue(problem.contains("k, m or g"), problem);
    }

    @Test
    void booleanAcceptsOnlyTrueAndFalse() {
        assertEquals(Optional.empty(), VERBOSE.problem("true"));
        assertEquals(Optional.empty(), VERBOSE.problem("false"));
        for (String bad : List.of("yes", "1", "", "on")) {
            assertTrue(VERBOSE.problem(bad).isPresent(), bad);
        }
        assertTrue(VERBOSE.problem("yes").orElseThrow().contains("true or false"));
    }

    @Test
    void booleanSettingReadsBack() {
        Settings settings = new Settings(Map.of("a", "true", "b", "false"));
        assertTrue(settings.bool("a"));
        assertFalse(settings.bool("b"));
    }

    @Test
    void choiceAcceptsOnlyListedWords() {
        assertEquals(Optional.empty(), MODE.problem("fast"));
        assertEquals(Optional.empty(), MODE.problem("safe"));
        assertTrue(MODE.problem("slow").isPresent());
        assertTrue(MODE.problem("").isPresent());
    }

    @Test
    void choiceProblemListsTheChoices() {
        String problem = MODE.problem("slow").orElseThrow();
        assertTrue(problem.contains("fast") && problem.contains("safe"), problem);
    }

    @Test
    void textAcceptsAnything() {
        Setting path = Setting.text("path", "data", "where");
        assertEquals(Optional.empty(), path.problem(""));
        assertEquals(Optional.empty(), path.problem(":memory:"));
    }

    @Test
    void invalidIntegerDefaultThrowsNamingTheKey() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Setting.integer("port", 0, 1, 65535, "listen port"));
        assertTrue(e.getMessage().contains("port"), e.getMessage());
        assertTrue(e.getMessage().contains("65535"), e.getMessage());
    }

    @Test
    void invalidChoiceDefaultThrows() {
        assertThrows(IllegalArgumentException.class, () -> Setting.choice("mode", "slow", "d", "fast", "safe"));
    }

    @Test
    void invalidSizeDefaultThrows() {
        assertThrows(IllegalArgumentException.class, () -> Setting.size("s", "10x", 0, 100, "d"));
    }

    @Test
    void invalidBooleanDefaultThrowsThroughTheConstructor() {
        assertThrows(IllegalArgumentException.class,
                () -> new Setting("b", "maybe", "d", Setting.Kind.BOOLEAN, 0, 0, List.of()));
    }

    @Test
    void withKeyKeepsTheRules() {
        Setting prefixed = THREADS.withKey("local.threads");
        assertEquals("local.threads", prefixed.key());
        assertEquals(THREADS.defaultValue(), prefixed.defaultValue());
        assertTrue(prefixed.problem("65").isPresent());
        assertEquals(Optional.empty(), prefixed.problem("64"));
    }

    @Test
    void choicesCannotBeChangedAfterConstruction() {
        assertThrows(UnsupportedOperationException.class, () -> MODE.choices().add("slow"));
    }

    @Test
    void underStripsThePrefixAndDropsOtherKeys() {
        Settings all = new Settings(Map.of(
                "local.path", "/data",
                "local.commit_interval_ms", "5",
                "remote.path", "elsewhere",
                "localpath", "no dot",
                "port", "11211"));
        Settings local = all.under("local.");
        assertEquals(Map.of("path", "/data", "commit_interval_ms", "5"), local.asMap());
        assertEquals("/data", local.text("path"));
        assertEquals(5, local.integer("commit_interval_ms"));
        assertThrows(IllegalArgumentException.class, () -> local.text("port"));
    }

    @Test
    void undeclaredKeyIsAProgrammingError() {
        assertThrows(IllegalArgumentException.class, () -> new Settings(Map.of()).text("nothing"));
    }

    @Test
    void typedGettersTrimAndConvert() {
        Settings settings = new Settings(Map.of("n", " 42 ", "big", "5000000000"));
        assertEquals(42, settings.intValue("n"));
        assertEquals("42", settings.text("n"));
        assertThrows(ArithmeticException.class, () -> settings.intValue("big"));
    }

    @Test
    void asMapIsSortedAndReadOnly() {
        Settings settings = new Settings(Map.of("b", "2", "a", "1", "c", "3"));
        assertEquals(List.of("a", "b", "c"), List.copyOf(settings.asMap().keySet()));
        assertThrows(UnsupportedOperationException.class, () -> settings.asMap().put("d", "4"));
    }
}
