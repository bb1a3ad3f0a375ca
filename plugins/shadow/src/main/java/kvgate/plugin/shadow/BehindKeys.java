package kvgate.plugin.shadow;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import kvgate.spi.Namespace;
import kvgate.spi.Operation;
import kvgate.spi.Result;
import kvgate.spi.StoreMode;

/**
 * The items the shadow may be behind on, because a mirrored write of them was skipped (no place free) or failed
 * without saying what the stores hold (the shadow failed, or the primary did, so whether it applied the write is
 * unknown). Their later differences have a known cause and are counted apart from the shadow's own mismatches
 * ({@link Verdict#BEHIND}), until a mirrored write that replaces the whole item (a store other than append and
 * prepend, or a delete) gets the same answer from both stores and so leaves them level again. A flush skipped or
 * failed so puts its whole namespace behind, until a flush of it matches.
 *
 * <p>At most {@code maxKeys} keys are remembered, in a Caffeine cache bounded by size: beyond them some are
 * forgotten, and a forgotten key's differences count as mismatches again, so a shadow far behind costs bounded
 * memory. Namespaces are few (configuration names them). The cache's upkeep runs on the threads that use it, so
 * the node keeps no background work.
 */
final class BehindKeys {
    private final Cache<ItemKey, Boolean> keys;
    private final Set<Namespace> namespaces = ConcurrentHashMap.newKeySet();

    BehindKeys(long maxKeys) {
        this.keys = Caffeine.newBuilder().maximumSize(maxKeys).executor(Runnable::run).build();
    }

    /** A mirrored write of the operation's item (or namespace) was skipped or failed; a read leaves nothing behind. */
    void fellBehind(Operation operation) {
        if (Operation.readsItem(operation)) {
            return;
        }
        ItemKey key = ItemKey.of(operation);
        if (key != null) {
            keys.put(key, Boolean.TRUE);
        } else if (operation instanceof Operation.Flush flush) {
            namespaces.add(flush.namespace());
        }
    }

    /** Both stores gave {@code answer} to the mirrored {@code operation}: if it replaced the item, they are level. */
    void matched(Operation operation, Result answer) {
        if (operation instanceof Operation.Flush flush) {
            // A delayed flush empties the stores later, so they are not level yet.
            if (flush.delayMillis() == 0) {
                namespaces.remove(flush.namespace());
                keys.asMap().keySet().removeIf(key -> key.namespace().equals(flush.namespace()));
            }
        } else if (operation instanceof Operation.Delete
                || operation instanceof Operation.Store store && answer.ok() && replacesValue(store.mode())) {
            keys.invalidate(ItemKey.of(operation));
        }
    }

    private static boolean replacesValue(StoreMode mode) {
        return switch (mode) {
            case SET, ADD, REPLACE -> true;
            case APPEND, PREPEND -> false;
        };
    }

    /** Whether the shadow may be behind on what {@code operation} reads or changes. */
    boolean isBehind(Operation operation) {
        if (namespaces.contains(operation.namespace())) {
            return true;
        }
        ItemKey key = ItemKey.of(operation);
        return key != null && keys.getIfPresent(key) != null;
    }

    /** How many keys are remembered, once the size bound has been enforced. */
    long keysRemembered() {
        keys.cleanUp();
        return keys.estimatedSize();
    }
}
