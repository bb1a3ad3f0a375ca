package kvgate.plugin.warmup;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import kvgate.spi.Item;
import kvgate.spi.ItemTransition;
import kvgate.spi.Operation;
import kvgate.spi.Result;
import kvgate.spi.Route;
import kvgate.spi.Status;

/**
 * A store in memory for the node's unit tests: every key operation is {@link ItemTransition#apply}, the semantics
 * every real backend shares, applied atomically; it also scans and flushes.
 */
final class MemoryRoute implements Route {
    private final Map<String, Item> items = new ConcurrentHashMap<>();
    private final AtomicLong cas = new AtomicLong(1000);

    @Override
    public synchronized CompletionStage<Result> execute(Operation operation) {
        if (operation instanceof Operation.KeyOperation keyed) {
            String id = id(keyed.namespace().name(), keyed.key());
            ItemTransition transition = ItemTransition.apply(keyed, items.get(id), System.currentTimeMillis(),
                    cas::incrementAndGet, 1 << 20);
            switch (transition.effect()) {
                case PUT -> items.put(id, transition.next());
                case REMOVE -> items.remove(id);
                default -> { }
            }
            return CompletableFuture.completedFuture(transition.result());
        }
        if (operation instanceof Operation.Flush flush) {
            items.keySet().removeIf(id -> id.startsWith(flush.namespace().name() + "\0"));
            return CompletableFuture.completedFuture(Result.DONE);
        }
        if (operation instanceof Operation.Scan scan) {
            String prefix = scan.namespace().name() + "\0";
            List<Result.Entry> entries = new ArrayList<>();
            items.forEach((id, item) -> {
                if (id.startsWith(prefix) && !item.isExpiredAt(System.currentTimeMillis())) {
                    entries.add(new Result.Entry(id.substring(prefix.length()).getBytes(StandardCharsets.ISO_8859_1),
                            item));
                }
            });
            return CompletableFuture.completedFuture(entries.size() > scan.limit()
                    ? Result.failure(Status.TOO_LARGE) : new Result.Entries(entries));
        }
        return CompletableFuture.completedFuture(Result.failure(Status.UNSUPPORTED));
    }

    /** The item under {@code key} of namespace {@code default}, or null. */
    Item item(String key) {
        return items.get(id("default", key.getBytes(StandardCharsets.UTF_8)));
    }

    int size() {
        return items.size();
    }

    private static String id(String namespace, byte[] key) {
        return namespace + "\0" + new String(key, StandardCharsets.ISO_8859_1);
    }
}
