package org.example.kvgate;

import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import kvgate.spi.Counter;
import kvgate.spi.CounterLedger;
import kvgate.spi.Namespace;
import kvgate.spi.Operation;
import kvgate.spi.Result;
import kvgate.spi.Status;

/**
 * The counter protocol's resource counters, for {@code counter.store = example}: how much of each named resource
 * is taken, and the ledger of what each owner (one client connection) holds, so that a connection can release only
 * what it acquired and everything it held is given back when it closes. The rules are the SPI's: {@link Counter}
 * says what an acquisition or a release makes of a counter and what a dump reports, {@link CounterLedger} who holds
 * what; this table only keeps them.
 *
 * <p>One lock guards the whole table. That is the simplest way to make "check the maximum, then grow" and "check
 * the ledger, then lower" atomic, and counters change far less often than items. A store with more traffic would
 * lock per counter, or keep the counters in a server that does these steps atomically.
 */
final class CounterTable {

    /** Counters are kept apart per namespace, as items are. */
    private record Name(Namespace namespace, String name) {
    }

    private final Map<Name, Counter> counters = new HashMap<>();
    private final CounterLedger<Name> ledger = new CounterLedger<>();
    private final Clock clock;
    private final long intervalSeconds;

    /** @param intervalSeconds the statistics interval: a dump reports each counter's maximum within it */
    CounterTable(Clock clock, long intervalSeconds) {
        this.clock = clock;
        this.intervalSeconds = intervalSeconds;
    }

    /** A missing counter is created holding the request; otherwise it grows unless that passes the maximum. */
    synchronized Result acquire(Operation.Acquire acquire) {
        Name name = nameOf(acquire.namespace(), acquire.name());
        Counter next = Counter.acquired(counters.get(name), acquire.resources(), acquire.maximum(), seconds(),
                intervalSeconds);
        if (next == null) {
            return Result.failure(Status.LIMIT_REACHED);
        }
        counters.put(name, next);
        ledger.acquired(acquire.owner(), name, acquire.resources());
        return new Result.Number(acquire.resources(), 0);
    }

    /** Gives back part of what the owner holds; more than it holds, or of a counter it never took, is refused. */
    synchronized Result release(Operation.Release release) {
        Name name = nameOf(release.namespace(), release.name());
        Counter counter = counters.get(name);
        if (counter == null) {
            return Result.failure(Status.NOT_FOUND);
        }
        if (!ledger.holds(release.owner(), name, release.resources())) {
            return Result.failure(Status.NOT_HELD);
        }
        ledger.released(release.owner(), name, release.resources());
        counters.put(name, counter.released(release.resources(), seconds(), intervalSeconds));
        return Result.DONE;
    }

    /** The owner's connection closed: everything it held goes back. */
    synchronized Result releaseAll(Operation.ReleaseAll releaseAll) {
        ledger.releaseAll(releaseAll.owner()).forEach((name, holding) -> {
            Counter counter = counters.get(name);
            if (counter != null && holding > 0) {
                counters.put(name, counter.released(holding, seconds(), intervalSeconds));
            }
        });
        return Result.DONE;
    }

    synchronized Result read(Operation.ReadCounter read) {
        Counter counter = counters.get(nameOf(read.namespace(), read.name()));
        return counter == null ? Result.failure(Status.NOT_FOUND) : new Result.Number(counter.consumption(), 0);
    }

    synchronized Result dump(Operation.DumpCounters dump) {
        long now = seconds();
        List<Result.CounterState> states = new ArrayList<>();
        counters.forEach((name, counter) -> {
            if (name.namespace().equals(dump.namespace())) {
                states.add(new Result.CounterState(ExampleStore.bytesOf(name.name()), counter.consumption(),
                        counter.reportedMax(now, intervalSeconds)));
            }
        });
        return new Result.Counters(states);
    }

    /** Forgets counters at 0 that did not change in the current interval (nobody holds any of them). */
    synchronized void removeIdle() {
        long now = seconds();
        counters.values().removeIf(counter -> counter.idle(now, intervalSeconds));
    }

    synchronized int size() {
        return counters.size();
    }

    private long seconds() {
        return clock.millis() / 1000;
    }

    private static Name nameOf(Namespace namespace, byte[] name) {
        return new Name(namespace, ExampleStore.keyOf(name));
    }
}
