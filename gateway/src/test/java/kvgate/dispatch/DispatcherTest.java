package kvgate.dispatch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import kvgate.metrics.GatewayMetrics;
import kvgate.metrics.Verb;
import kvgate.route.BackendRoute;
import kvgate.spi.Backend;
import kvgate.spi.Capability;
import kvgate.spi.Item;
import kvgate.spi.Namespace;
import kvgate.spi.Operation;
import kvgate.spi.Result;
import kvgate.spi.Route;
import kvgate.spi.Status;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The dispatcher alone, with a scripted backend: failure conversion, delayed flush, counting. */
class DispatcherTest {
    private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
    private final List<String> trace = new ArrayList<>();

    @AfterEach
    void stop() {
        scheduler.shutdownNow();
    }

    /** Answers gets from a script and records what reached it. */
    private final class ScriptedBackend implements Backend {
        CompletionStage<Result> next = CompletableFuture.completedFuture(Result.DONE);
        RuntimeException thrown;

        @Override
        public Set<Capability> capabilities() {
            return EnumSet.noneOf(Capability.class);
        }

        @Override
        public CompletionStage<Result> execute(Operation operation) {
            trace.add("backend " + Verb.of(operation).tag());
            if (thrown != null) {
                throw thrown;
            }
            return next;
        }

        @Override
        public void close() {
        }
    }

    private static Operation get() {
        return new Operation.Get(Namespace.DEFAULT, "k".getBytes(StandardCharsets.UTF_8));
    }

    private static Result result(CompletionStage<Result> stage) throws Exception {
        return stage.toCompletableFuture().get(5, TimeUnit.SECONDS);
    }

    @Test
    void everyKindOfBackendFailureBecomesABackendErrorResult() throws Exception {
        ScriptedBackend backend = new ScriptedBackend();
        GatewayMetrics metrics = new GatewayMetrics();
        Dispatcher dispatcher = new Dispatcher(BackendRoute.alone(backend), null, metrics, scheduler);
        backend.thrown = new IllegalStateException("disk on fire");
        Result thrown = result(dispatcher.dispatch(get()));
        assertEquals(Status.BACKEND_ERROR, thrown.status());
        assertTrue(((Result.Failure) thrown).message().contains("disk on fire"));
        backend.thrown = null;
        backend.next = CompletableFuture.failedFuture(new RuntimeException("late failure"));
        assertEquals(Status.BACKEND_ERROR, result(dispatcher.dispatch(get())).status());
        backend.next = null;
        assertEquals(Status.BACKEND_ERROR, result(dispatcher.dispatch(get())).status());
        backend.next = CompletableFuture.completedFuture(null);
        assertEquals(Status.BACKEND_ERROR, result(dispatcher.dispatchAll(List.of(get(), get())).get(1)).status());
        assertEquals(5, metrics.count(Verb.GET, Status.BACKEND_ERROR), "each failure is counted");
    }

    @Test
    void aBackendStageThatCompletesLaterIsGuardedOnTheWayBack() throws Exception {
        ScriptedBackend backend = new ScriptedBackend();
        GatewayMetrics metrics = new GatewayMetrics();
        Dispatcher dispatcher = new Dispatcher(BackendRoute.alone(backend), null, metrics, scheduler);
        // Guarded at the backend's leaf and not again at the root: each outcome still arrives, as a result.
        CompletableFuture<Result> failing = new CompletableFuture<>();
        backend.next = failing;
        CompletionStage<Result> alone = dispatcher.dispatch(get());
        failing.completeExceptionally(new IllegalStateException("connection reset"));
        Result failed = result(alone);
        assertEquals(Status.BACKEND_ERROR, failed.status());
        assertTrue(((Result.Failure) failed).message().contains("connection reset"));
        CompletableFuture<Result> empty = new CompletableFuture<>();
        backend.next = empty;
        List<CompletionStage<Result>> burst = dispatcher.dispatchAll(List.of(get(), get()));
        empty.complete(null);
        assertEquals(Status.BACKEND_ERROR, result(burst.get(0)).status());
        assertEquals(Status.BACKEND_ERROR, result(burst.get(1)).status());
        CompletableFuture<Result> found = new CompletableFuture<>();
        backend.next = found;
        CompletionStage<Result> hit = dispatcher.dispatch(get());
        Result.Value value = new Result.Value(new Item(new byte[] {7}, 0, 1, 0));
        found.complete(value);
        assertEquals(value, result(hit));
        assertEquals(3, metrics.count(Verb.GET, Status.BACKEND_ERROR));
        assertEquals(1, metrics.count(Verb.GET, Status.OK));
    }

    @Test
    void outcomesAreCountedByVerbAndStatus() throws Exception {
        ScriptedBackend backend = new ScriptedBackend();
        GatewayMetrics metrics = new GatewayMetrics();
        Dispatcher dispatcher = new Dispatcher(BackendRoute.alone(backend), null, metrics, scheduler);
        backend.next = CompletableFuture.completedFuture(new Result.Value(new Item(new byte[0], 0, 1, 0)));
        result(dispatcher.dispatch(get()));
        backend.next = CompletableFuture.completedFuture(Result.failure(Status.NOT_FOUND));
        result(dispatcher.dispatchAll(List.of(get(), get())).get(1));
        assertEquals(1, metrics.count(Verb.GET, Status.OK));
        assertEquals(2, metrics.count(Verb.GET, Status.NOT_FOUND));
        assertEquals(3, metrics.count(Verb.GET));
    }

    @Test
    void aDelayedFlushIsAnsweredAtOnceAndReachesTheBackendLater() throws Exception {
        ScriptedBackend backend = new ScriptedBackend();
        Dispatcher dispatcher = new Dispatcher(BackendRoute.alone(backend), null, new GatewayMetrics(), scheduler);
        Result answer = result(dispatcher.dispatch(new Operation.Flush(Namespace.DEFAULT, 300)));
        assertEquals(Status.OK, answer.status());
        assertTrue(trace.isEmpty(), "the backend sees nothing before the delay");
        Thread.sleep(600);
        assertEquals(List.of("backend flush"), trace);
    }

    /** A route tree that notes every operation it is given after it was closed. */
    private static final class ClosableTree implements Route {
        final AtomicInteger afterClose;
        volatile boolean closed;

        ClosableTree(AtomicInteger afterClose) {
            this.afterClose = afterClose;
        }

        @Override
        public CompletionStage<Result> execute(Operation operation) {
            if (closed) {
                afterClose.incrementAndGet();
            }
            return CompletableFuture.completedFuture(Result.failure(Status.NOT_FOUND));
        }
    }

    @Test
    void noOperationRunsOnATreeAfterItWasFoundIdleAndClosed() throws Exception {
        AtomicInteger afterClose = new AtomicInteger();
        Dispatcher dispatcher = new Dispatcher(new ClosableTree(afterClose), null, new GatewayMetrics(),
                scheduler);
        AtomicBoolean running = new AtomicBoolean(true);
        ExecutorService clients = Executors.newFixedThreadPool(3);
        List<Future<?>> work = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            work.add(clients.submit(() -> {
                while (running.get()) {
                    dispatcher.dispatch(get());
                    dispatcher.dispatchAll(List.of(get(), get(), get()));
                }
            }));
        }
        int swaps = 0;
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
        while (System.nanoTime() < end) {
            // As a reload retires a tree: swapped out, waited for until idle, then closed.
            Dispatcher.Generation old = dispatcher.swap(new ClosableTree(afterClose));
            while (old.unfinished() != 0) {
                Thread.onSpinWait();
            }
            ((ClosableTree) old.root()).closed = true;
            swaps++;
        }
        running.set(false);
        for (Future<?> future : work) {
            future.get(10, TimeUnit.SECONDS);
        }
        clients.shutdown();
        assertEquals(0, afterClose.get(), "operations run on a closed tree in " + swaps + " swaps");
    }
}
