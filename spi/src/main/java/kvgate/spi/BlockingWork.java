package kvgate.spi;

import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;

/**
 * A backend's work that blocks (a listing that walks a store in a loop of round trips), run on a daemon thread of
 * its own, made at first use, never on the gateway's network threads. Jobs run one after another. A job that throws
 * completes with a backend error, one interrupted or asked for after {@link #close} with a temporary failure.
 */
public final class BlockingWork implements AutoCloseable {
    /** What runs: it may block, and answers a result. */
    @FunctionalInterface
    public interface Job {
        Result call() throws InterruptedException;
    }

    private final String threadName;
    /** Guarded by this. */
    private ExecutorService executor;
    /** Guarded by this. */
    private boolean closed;

    /** @param threadName the name of the thread the jobs run on */
    public BlockingWork(String threadName) {
        this.threadName = threadName;
    }

    /** Runs {@code job} on the thread; the stage completes with its result, never exceptionally. */
    public CompletionStage<Result> run(Job job) {
        ResultFuture done = new ResultFuture();
        try {
            executor().execute(() -> {
                try {
                    done.complete(job.call());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    done.complete(Result.failure(Status.TEMPORARY_FAILURE, "interrupted"));
                } catch (RuntimeException e) {
                    done.complete(Result.backendError(e));
                }
            });
        } catch (RejectedExecutionException closed) {
            done.complete(Result.failure(Status.TEMPORARY_FAILURE, "the backend is closing"));
        }
        return done;
    }

    private synchronized ExecutorService executor() {
        if (closed) {
            throw new RejectedExecutionException("closed");
        }
        if (executor == null) {
            executor = Executors.newSingleThreadExecutor(task -> {
                Thread thread = new Thread(task, threadName);
                thread.setDaemon(true);
                return thread;
            });
        }
        return executor;
    }

    /** Stops the thread, interrupting a job under way; jobs asked for afterwards fail at once. */
    @Override
    public synchronized void close() {
        closed = true;
        if (executor != null) {
            executor.shutdownNow();
        }
    }
}
