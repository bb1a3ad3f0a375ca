package kvgate.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Blocking jobs off the caller's thread: their results, their failures, and what is asked after close. */
class BlockingWorkTest {
    @Test
    void jobsRunOnTheirThreadAndFailuresBecomeResults() {
        BlockingWork work = new BlockingWork("test-blocking");
        try {
            Result named = work.run(() -> new Result.Stored(Thread.currentThread().getName().length()))
                    .toCompletableFuture().join();
            assertEquals(new Result.Stored("test-blocking".length()), named);
            Result thrown = work.run(() -> {
                throw new IllegalStateException("broken");
            }).toCompletableFuture().join();
            assertEquals(Status.BACKEND_ERROR, thrown.status());
        } finally {
            work.close();
        }
        Result late = work.run(() -> Result.DONE).toCompletableFuture().join();
        assertEquals(Status.TEMPORARY_FAILURE, late.status());
        assertTrue(((Result.Failure) late).message().contains("closing"));
    }
}
