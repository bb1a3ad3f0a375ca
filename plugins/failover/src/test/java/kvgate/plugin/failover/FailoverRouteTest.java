package kvgate.plugin.failover;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;
import kvgate.spi.Item;
import kvgate.spi.Namespace;
import kvgate.spi.Operation;
import kvgate.spi.Result;
import kvgate.spi.Route;
import kvgate.spi.RouteContext;
import kvgate.spi.Setting;
import kvgate.spi.Settings;
import kvgate.spi.Status;
import kvgate.spi.StoreMode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The node over stand-in children that answer as each test tells them and count what reaches them. */
class FailoverRouteTest {
    private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();

    @AfterEach
    void stop() {
        scheduler.shutdownNow();
    }

    /** A child answering every operation with what {@code answer} gives, counting the calls. */
    private static final class Child implements Route {
        final AtomicInteger calls = new AtomicInteger();
        final Supplier<CompletionStage<Result>> answer;

        Child(Supplier<CompletionStage<Result>> answer) {
            this.answer = answer;
        }

        @Override
        public CompletionStage<Result> execute(Operation operation) {
            calls.incrementAndGet();
            return answer.get();
        }
    }

    private static Child answering(Result result) {
        return new Child(() -> CompletableFuture.completedFuture(result));
    }

    /** Work the node counts as its own after its answers, as the gateway counts it for a reload. */
    private final AtomicInteger background = new AtomicInteger();

    private Route node(Route first, Route second, String... settings) {
        FailoverRouteFactory factory = new FailoverRouteFactory();
        Map<String, String> values = new HashMap<>();
        for (Setting setting : factory.settings()) {
            values.put(setting.key(), setting.defaultValue());
        }
        values.put("children", "first, second");
        for (int i = 0; i < settings.length; i += 2) {
            values.put(settings[i], settings[i + 1]);
        }
        return factory.build(new RouteContext("safe", new Settings(values), name -> switch (name) {
            case "first" -> first;
            case "second" -> second;
            default -> throw new IllegalArgumentException("no route named '" + name + "'");
        }, scheduler, name -> new LongAdder(), work -> {
            background.incrementAndGet();
            work.whenComplete((result, error) -> background.decrementAndGet());
        }));
    }

    private static final Operation GET = new Operation.Get(Namespace.DEFAULT, "k".getBytes(StandardCharsets.UTF_8));
    private static final Operation SET = new Operation.Store(Namespace.DEFAULT, "k".getBytes(StandardCharsets.UTF_8),
            StoreMode.SET, new byte[] {1}, 0, Item.NEVER, 0);
    private static final Result HIT = new Result.Value(new Item(new byte[] {1}, 0, 1, Item.NEVER));

    private static Result run(Route route, Operation operation) {
        return route.execute(operation).toCompletableFuture().join();
    }

    @Test
    void onlyATemporaryFailureMovesOnByDefault() {
        Child second = answering(HIT);
        assertEquals(HIT, run(node(answering(Result.failure(Status.TEMPORARY_FAILURE, "down")), second), GET));
        assertEquals(Status.BACKEND_ERROR, run(node(answering(Result.failure(Status.BACKEND_ERROR, "unknown")),
                second), SET).status(), "an unknown outcome stays with its answer");
        assertEquals(Status.NOT_FOUND, run(node(answering(Result.failure(Status.NOT_FOUND, "")), second), GET)
                .status(), "an answer about the data is final");
        assertEquals(1, second.calls.get());
    }

    @Test
    void anyFailureMovesOnAfterAnUnknownOutcomeOrAThrowingChildButNotAfterAnAnswer() {
        Child second = answering(Result.DONE);
        assertEquals(Result.DONE, run(node(answering(Result.failure(Status.BACKEND_ERROR, "unknown")), second,
                "failover_on", "any_failure"), SET));
        Route throwing = operation -> {
            throw new IllegalStateException("broken child");
        };
        assertEquals(Result.DONE, run(node(throwing, second, "failover_on", "any_failure"), SET));
        assertEquals(Status.EXISTS, run(node(answering(Result.failure(Status.EXISTS, "")), second,
                "failover_on", "any_failure"), SET).status());
        assertEquals(2, second.calls.get());
    }

    @Test
    void theNodesDeadlineLeavesASilentChildAReadMovesOnAWriteIsUnknown() {
        Child silent = new Child(CompletableFuture::new);
        Child second = answering(HIT);
        assertEquals(HIT, run(node(silent, second, "timeout_ms", "50"), GET));
        Result write = run(node(silent, second, "timeout_ms", "50"), SET);
        assertEquals(Status.BACKEND_ERROR, write.status(), "a write left unanswered has an unknown outcome");
        assertEquals(1, second.calls.get());
        assertEquals(HIT, run(node(silent, second, "timeout_ms", "50", "failover_on", "any_failure"), SET));
        Operation leaseGet = new Operation.LeaseGet(Namespace.DEFAULT, "k".getBytes(StandardCharsets.UTF_8), null,
                null, null);
        assertEquals(HIT, run(node(silent, second, "timeout_ms", "50"), leaseGet), "a lease get that only reads");
        Operation touching = new Operation.LeaseGet(Namespace.DEFAULT, "k".getBytes(StandardCharsets.UTF_8), 0L,
                null, null);
        assertEquals(Status.BACKEND_ERROR, run(node(silent, second, "timeout_ms", "50"), touching).status(),
                "one that touches is a write");
    }

    @Test
    void aChildLeftAtTheDeadlineIsTheNodesBackgroundWorkUntilItAnswers() throws Exception {
        CompletableFuture<Result> late = new CompletableFuture<>();
        Child slow = new Child(() -> late);
        assertEquals(HIT, run(node(slow, answering(HIT), "timeout_ms", "50"), GET));
        assertEquals(1, background.get(), "the first child still works on the read");
        late.complete(HIT);
        assertEquals(0, background.get());
    }

    @Test
    void explainNamesTheChildrenInOrderAndTheRule() {
        Child first = answering(HIT);
        Child second = answering(HIT);
        Route.Step step = node(first, second, "timeout_ms", "200").explain(GET);
        assertEquals(List.of(first, second), step.next());
        assertEquals("tries each in order, the next after a temporary failure or 200 ms without an answer",
                step.says());
        assertEquals(0, first.calls.get(), "explaining sends nothing");
    }

    @Test
    void fewerThanTwoChildrenOrAnUnknownPolicyAreRefused() {
        Child only = answering(HIT);
        assertThrows(IllegalArgumentException.class, () -> node(only, only, "children", "first"));
        assertThrows(IllegalArgumentException.class, () -> node(only, only, "failover_on", "sometimes"));
    }
}
