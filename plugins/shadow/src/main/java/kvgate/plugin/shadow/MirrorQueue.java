package kvgate.plugin.shadow;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import kvgate.spi.Namespace;

/**
 * Keeps the shadow's view of each key in the primary's order. A write with the primary's CAS can only be mirrored
 * once the primary answered it ({@link Mirrored#ready}); the operations of its key picked after it must not overtake
 * it, or a delete right behind a CAS set would reach the shadow first and leave the key there for good. So they wait
 * behind it, in a lane of their key, and are released in order, each ready run as one list, as soon as the write
 * before them is ready. Operations of a key with nothing waiting are not held at all: the common case costs one look
 * at an empty map.
 *
 * <p>Operations of one key picked one after another (one connection's, or any that follow in time) keep their order;
 * those picked at the same moment on two threads have no order at the primary either. Nothing here bounds how many
 * wait: the caller gives each a place of its own bounded count before holding it.
 */
final class MirrorQueue {
    private final ConcurrentHashMap<ItemKey, Lane> lanes = new ConcurrentHashMap<>();
    private final Consumer<List<Mirrored>> release;

    /** The operations of one key waiting. Read and changed only inside the map's compute of its key. */
    private static final class Lane {
        final ArrayDeque<Mirrored> waiting = new ArrayDeque<>();
        /** Whether a thread is handing the ready ones on; any other that finds more ready leaves them to it. */
        boolean releasing;
    }

    /** @param release sends to the shadow, in order, operations held until now; called on the thread that freed them */
    MirrorQueue(Consumer<List<Mirrored>> release) {
        this.release = release;
    }

    /**
     * Holds {@code mirrored} when it must wait: a write with a CAS until the primary answered it, anything else while
     * an earlier operation of its key waits. Returns false when it need not wait and the caller sends it now.
     */
    boolean hold(Mirrored mirrored) {
        boolean waitsForPrimary = !mirrored.ready();
        if (!waitsForPrimary && lanes.isEmpty()) {
            return false;
        }
        ItemKey key = ItemKey.of(mirrored.operation());
        if (key == null) {
            return false;
        }
        Lane lane = waitsForPrimary
                ? lanes.compute(key, (k, current) -> queue(current == null ? new Lane() : current, mirrored))
                : lanes.computeIfPresent(key, (k, current) -> queue(current, mirrored));
        if (lane == null) {
            return false;
        }
        if (waitsForPrimary) {
            mirrored.answer().whenComplete((result, error) -> releaseReady(key));
        }
        return true;
    }

    private static Lane queue(Lane lane, Mirrored mirrored) {
        lane.waiting.add(mirrored);
        return lane;
    }

    /**
     * Takes out of the queue every operation of {@code namespace} waiting, and returns them: for a flush of the
     * namespace, which the primary applies after them, so that the shadow, given the flush first, would keep what
     * they write. A lane being handed on by another thread stays for it to remove once it finds the lane empty.
     */
    List<Mirrored> dropNamespace(Namespace namespace) {
        List<Mirrored> dropped = new ArrayList<>();
        for (ItemKey key : lanes.keySet()) {
            if (key.namespace().equals(namespace)) {
                lanes.computeIfPresent(key, (k, lane) -> {
                    dropped.addAll(lane.waiting);
                    lane.waiting.clear();
                    return lane.releasing ? lane : null;
                });
            }
        }
        return dropped;
    }

    /** How many keys have operations waiting. */
    int keysWaiting() {
        return lanes.size();
    }

    /**
     * Hands on the ready operations at the head of the key's lane, in order, and goes on while more become ready
     * meanwhile; the lane goes once empty. One thread at a time hands a lane's operations on, so that two runs of
     * them never race to the shadow.
     */
    private void releaseReady(ItemKey key) {
        boolean releasing = false;
        while (true) {
            boolean mine = releasing;
            List<Mirrored> ready = new ArrayList<>();
            lanes.computeIfPresent(key, (k, lane) -> {
                if (lane.releasing && !mine) {
                    return lane;
                }
                while (!lane.waiting.isEmpty() && lane.waiting.peek().ready()) {
                    ready.add(lane.waiting.poll());
                }
                lane.releasing = !ready.isEmpty();
                return lane.waiting.isEmpty() && !lane.releasing ? null : lane;
            });
            if (ready.isEmpty()) {
                return;
            }
            releasing = true;
            release.accept(ready);
        }
    }
}
