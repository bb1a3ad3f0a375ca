package kvgate.backend.local;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import kvgate.spi.Result;
import kvgate.spi.ResultFuture;
import kvgate.spi.Status;

/**
 * Holds acknowledgements back until the writes they acknowledge are committed to the store file. One thread
 * commits whatever has been written since the last commit and then releases every acknowledgement that was waiting,
 * so under load one commit serves many writes (group commit) and no network thread ever waits on the disk.
 */
final class GroupCommit implements AutoCloseable {

    /** What the committer does once per round; throws when the commit failed. */
    @FunctionalInterface
    interface Commit {
        void run() throws Exception;
    }

    private record Waiting(ResultFuture acknowledgement, Result result) {
    }

    private final LinkedBlockingQueue<Waiting> waiting = new LinkedBlockingQueue<>();
    private final Commit commit;
    private final Thread thread;
    private volatile boolean running = true;

    GroupCommit(String name, Commit commit) {
        this.commit = commit;
        this.thread = new Thread(this::loop, "kvgate-" + name + "-commit");
        this.thread.setDaemon(true);
        this.thread.start();
    }

    /**
     * Returns a stage that completes with {@code result} once everything written before this call is committed.
     * The caller must have made its change to the store before calling.
     */
    CompletionStage<Result> afterCommit(Result result) {
        // Completed only with a result: the gateway hands it on without a guard of its own.
        ResultFuture acknowledgement = new ResultFuture();
        waiting.add(new Waiting(acknowledgement, result));
        if (!running) {
            // Raced with close(): make sure nobody waits forever.
            commitRound();
        }
        return acknowledgement;
    }

    private void loop() {
        while (running) {
            try {
                Waiting first = waiting.poll(100, TimeUnit.MILLISECONDS);
                if (first != null) {
                    List<Waiting> round = new ArrayList<>();
                    round.add(first);
                    waiting.drainTo(round);
                    commitAndRelease(round);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    private synchronized void commitRound() {
        List<Waiting> round = new ArrayList<>();
        waiting.drainTo(round);
        if (!round.isEmpty()) {
            commitAndRelease(round);
        }
    }

    private synchronized void commitAndRelease(List<Waiting> round) {
        Result failure = null;
        try {
            commit.run();
        } catch (Exception | Error e) {
            // An Error too (out of memory, an assertion of the store's): it must not end the committer with this
            // round's acknowledgements, and every later one, left waiting for good.
            failure = Result.failure(Status.BACKEND_ERROR, "commit to the store file failed: " + e);
        }
        for (Waiting w : round) {
            w.acknowledgement().complete(failure == null ? w.result() : failure);
        }
    }

    /** Stops the committer after committing and releasing everything still waiting. */
    @Override
    public void close() throws InterruptedException {
        running = false;
        thread.join();
        commitRound();
    }
}
