package kvgate.plugin.shadow;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import kvgate.spi.Namespace;
import kvgate.spi.Operation;
import kvgate.spi.Result;
import kvgate.spi.StoreMode;
import org.junit.jupiter.api.Test;

class MirrorQueueTest {
    private final List<List<Operation>> released = new CopyOnWriteArrayList<>();
    private final MirrorQueue queue = new MirrorQueue(ready -> released.add(ready.stream()
            .map(Mirrored::operation).toList()));

    private static Mirrored get(String namespace, String key) {
        return new Mirrored(new Operation.Get(new Namespace(namespace), key.getBytes(StandardCharsets.UTF_8)),
                CompletableFuture.completedFuture(Result.failure(kvgate.spi.Status.NOT_FOUND)));
    }

    private static Mirrored casSet(String key, CompletableFuture<Result> answer) {
        return new Mirrored(new Operation.Store(Namespace.DEFAULT, key.getBytes(StandardCharsets.UTF_8),
                StoreMode.SET, new byte[0], 0, 0, 7), answer);
    }

    @Test
    void onlyTheKeyOfAWaitingCasWriteIsHeldInItsNamespaceAndTheLaneGoesOnceEmpty() {
        CompletableFuture<Result> answer = new CompletableFuture<>();
        Mirrored write = casSet("a", answer);
        assertTrue(queue.hold(write));
        Mirrored sameKey = get("default", "a");
        assertTrue(queue.hold(sameKey));
        assertFalse(queue.hold(get("other", "a")), "another namespace's item of that key does not wait");
        assertFalse(queue.hold(get("default", "b")));
        assertEquals(1, queue.keysWaiting());
        answer.complete(new Result.Stored(9));
        assertEquals(List.of(List.of(write.operation(), sameKey.operation())), released);
        assertEquals(0, queue.keysWaiting());
        assertFalse(queue.hold(get("default", "a")), "nothing waits any more");
    }

    @Test
    void aCasWriteAnsweredAlreadyIsNotHeld() {
        assertFalse(queue.hold(casSet("a", CompletableFuture.completedFuture(new Result.Stored(9)))));
        assertEquals(0, queue.keysWaiting());
    }
}
