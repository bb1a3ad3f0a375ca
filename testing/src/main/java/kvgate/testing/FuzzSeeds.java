package kvgate.testing;

import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.time.Duration;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;

/**
 * The seeds of a fuzz test, one dynamic test each, named by its seed. The list is fixed, so every run checks the
 * same inputs; {@code -Dkvgate.fuzz.seeds=N} runs seeds 1 to N instead (a longer hunt), and
 * {@code -Dkvgate.fuzz.seed=S} seed S alone (to replay a failure).
 */
public final class FuzzSeeds {
    public static final String SEED_PROPERTY = "kvgate.fuzz.seed";
    public static final String COUNT_PROPERTY = "kvgate.fuzz.seeds";

    /** One seed's run: builds its input from the seed, sends it and checks what came back. */
    public interface SeedRun {
        void run(long seed) throws Exception;
    }

    private FuzzSeeds() {
    }

    /**
     * A dynamic test per seed, 1 to {@code fixed} unless a property says otherwise. Each must finish within
     * {@code limit}, so a gateway that stops answering fails the seed instead of stalling the build; a failure names
     * its seed and how to replay it.
     */
    public static Stream<DynamicTest> tests(int fixed, Duration limit, SeedRun run) {
        String only = System.getProperty(SEED_PROPERTY);
        LongStream seeds = only != null ? LongStream.of(Long.parseLong(only.strip()))
                : LongStream.rangeClosed(1, Long.getLong(COUNT_PROPERTY, fixed));
        return seeds.mapToObj(seed -> DynamicTest.dynamicTest("seed " + seed, () -> {
            String replay = "seed " + seed + " (replay with -D" + SEED_PROPERTY + "=" + seed + ")";
            try {
                assertTimeoutPreemptively(limit, () -> run.run(seed), () -> replay + ": did not finish");
            } catch (AssertionError | Exception e) {
                throw new AssertionError(replay + ": " + e.getMessage(), e);
            }
        }));
    }
}
