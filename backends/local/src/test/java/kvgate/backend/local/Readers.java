package kvgate.backend.local;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Collection;
import java.util.List;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;

/** The end of a test whose reader threads race writers: each reader returns how many reads found something. */
final class Readers {
    private Readers() {
    }

    /** Waits for the readers; asserts that none of them saw a problem and that, together, they found something. */
    static void assertAllWell(List<Future<Long>> readers, Collection<String> problems) throws Exception {
        long found = 0;
        for (Future<Long> reader : readers) {
            found += reader.get(60, SECONDS);
        }
        assertEquals(List.of(), List.copyOf(problems));
        assertTrue(found > 0, "the readers never found anything");
    }

    /** Waits for the writers, then tells the readers to stop ({@code writing} false) and checks them. */
    static void assertAllWellAfter(List<? extends Future<?>> writers, AtomicBoolean writing,
                                   List<Future<Long>> readers, Collection<String> problems) throws Exception {
        for (Future<?> writer : writers) {
            writer.get(60, SECONDS);
        }
        writing.set(false);
        assertAllWell(readers, problems);
    }
}
