package kvgate.route;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import kvgate.spi.Backend;
import kvgate.spi.Capability;
import kvgate.spi.Item;
import kvgate.spi.Namespace;
import kvgate.spi.Operation;
import kvgate.spi.Result;
import kvgate.spi.Status;
import kvgate.spi.StoreMode;
import org.junit.jupiter.api.Test;

/**
 * {@link BackendRoute}'s refusals of what a backend did not declare it can do: such an operation is answered
 * {@link Status#UNSUPPORTED} without reaching the backend, so that a plugin written before it existed cannot carry it
 * out wrongly.
 */
class BackendRouteTest {
    private static final byte[] KEY = "counter".getBytes(StandardCharsets.UTF_8);

    /** A backend that records what reaches it and answers every operation with one number. */
    private static final class Recording implements Backend {
        final Set<Capability> capabilities;
        final List<Operation> received = new ArrayList<>();

        Recording(Set<Capability> capabilities) {
            this.capabilities = capabilities;
        }

        @Override
        public Set<Capability> capabilities() {
            return capabilities;
        }

        @Override
        public CompletionStage<Result> execute(Operation operation) {
            received.add(operation);
            return CompletableFuture.completedFuture(new Result.Number(1, 2, 3));
        }

        @Override
        public void close() {
        }
    }

    private static Operation.Arithmetic arithmetic(Long touchExpiresAt) {
        return new Operation.Arithmetic(Namespace.DEFAULT, KEY, true, 1, 0, false, Item.NEVER, 0, touchExpiresAt);
    }

    private static Result run(BackendRoute route, Operation operation) {
        return route.execute(operation).toCompletableFuture().join();
    }

    @Test
    void arithmeticSettingAnExpiryReachesOnlyABackendDeclaringIt() {
        // KEEP_EXPIRY alone, as a plugin written before ma's T declared it for Preserve TTL stores.
        Recording plain = new Recording(EnumSet.of(Capability.KEEP_EXPIRY));
        BackendRoute route = BackendRoute.alone(plain);
        assertEquals(Status.UNSUPPORTED, run(route, arithmetic(5_000L)).status());
        assertEquals(List.of(), plain.received, "refused without asking the backend");
        assertEquals(new Result.Number(1, 2, 3), run(route, arithmetic(null)), "arithmetic keeping the expiry goes");
        assertEquals(1, plain.received.size());

        Recording keeping = new Recording(EnumSet.of(Capability.ARITHMETIC_EXPIRY));
        assertEquals(new Result.Number(1, 2, 3), run(BackendRoute.alone(keeping), arithmetic(5_000L)));
        assertEquals(5_000L, ((Operation.Arithmetic) keeping.received.get(0)).touchExpiresAt());
    }

    @Test
    void aWriteChoosingItsCasReachesOnlyABackendTakingIt() {
        Recording plain = new Recording(EnumSet.of(Capability.KEEP_EXPIRY, Capability.LEASES));
        BackendRoute route = BackendRoute.alone(plain);
        Operation chosen = new Operation.Store(Namespace.DEFAULT, KEY, StoreMode.SET, new byte[1], 0, Item.NEVER, 0,
                false, false, 42);
        assertEquals(Status.UNSUPPORTED, run(route, chosen).status());
        assertEquals(Status.UNSUPPORTED,
                run(route, new Operation.Invalidate(Namespace.DEFAULT, KEY, 0, null, 42)).status());
        assertEquals(List.of(), plain.received, "refused without asking the backend");

        Recording taking = new Recording(EnumSet.of(Capability.CHOSEN_CAS));
        run(BackendRoute.alone(taking), chosen);
        assertEquals(List.of(chosen), taking.received);
    }

    @Test
    void aStoreKeepingTheExpiryReachesOnlyABackendKeepingExpiries() {
        Recording plain = new Recording(EnumSet.noneOf(Capability.class));
        Operation keep = new Operation.Store(Namespace.DEFAULT, KEY, StoreMode.SET, new byte[1], 0,
                Item.NEVER, 0, true);
        assertEquals(Status.UNSUPPORTED, run(BackendRoute.alone(plain), keep).status());
        assertEquals(List.of(), plain.received);
    }
}
