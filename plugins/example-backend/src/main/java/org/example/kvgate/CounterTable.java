package org.example.kvgate;

import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import kvgate.spi.Namespace;
import kvgate.spi.Operation;
import kvgate.spi.Result;
import kvgate.spi.Status;

/**
 * The counter protocol's resource counters, for {@code counter.store = example}: how much of each named resource
 * is taken, and the ledger of what each owner (one client connection) holds, so that a connection can release only
 * what it acquired and everything it held is given back when it closes.
 *
 * <p>One lock guards the whole table. That is the simplest way to make "check the maximum, then grow" and "check
 * the ledger, then lower" atomic, and counters change far less often than items. A store with more traffic would
 * lock per counter, or keep the counters in a server that does these steps atomically.
 */
final class CounterTable {

    /** Counters are kept apart per namespace, as items are. */
    private record Name(Namespace namespace, String name) {
    }

    private static final class Counter {
        long consumption;
        /** The highest consumption since the start of the statistics interval of {@link #lastChanged}. */
        long maxInInterval;
        /** Epoch second of the last change. */
        long lastChanged;
    }

    private final Map<Name, Counter> counters = new HashMap<>();
    /** owner -> counter -> resources that owner holds of it. */
    private final Map<String, Map<Name, Long>> ledgers = new HashMap<>();
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
        Counter counter = counters.get(name);
        if (counter == null) {
            counter = new Counter();
            counters.put(name, counter);
        } else if (counter.consumption + acquire.resources() > acquire.maximum()) {
            // Amounts are below 2^32, so the sum cannot overflow a long.
            return Result.failure(Status.LIMIT_REACHED);
        }
        change(counter, counter.consumption + acquire.resources());
        ledgers.computeIfAbsent(acquire.owner(), owner -> new HashMap<>()).merge(name, acquire.resources(), Long::sum);
        return new Result.Number(acquire.resources(), 0);
    }

    /** Gives back part of what the owner holds; more than it holds, or of a counter it never took, is refused. */
    synchronized Result release(Operation.Release release) {
        Name name = nameOf(release.namespace(), release.name());
        Counter counter = counters.get(name);
        if (counter == null) {
            return Result.failure(Status.NOT_FOUND);
        }
        Map<Name, Long> held = ledgers.get(release.owner());
        Long holding = held == null ? null : held.get(name);
        if (holding == null || holding < release.resources()) {
            return Result.failure(Status.NOT_HELD);
        }
        if (holding == release.resources()) {
            held.remove(name); // holding none: a release of 0 is then "not acquired", as in the reference server
        } else {
            held.put(name, holding - release.resources());
        }
        change(counter, counter.consumption - release.resources());
        return Result.DONE;
    }

    /** The owner's connection closed: everything it held goes back. */
    synchronized Result releaseAll(Operation.ReleaseAll releaseAll) {
        Map<Name, Long> held = ledgers.remove(releaseAll.owner());
        if (held != null) {
            held.forEach((name, holding) -> {
                Counter counter = counters.get(name);
                if (counter != null && holding > 0) {
                    change(counter, counter.consumption - holding);
                }
            });
        }
        return Result.DONE;
    }

    synchronized Result read(Operation.ReadCounter read) {
        Counter counter = counters.get(nameOf(read.namespace(), read.name()));
        return counter == null ? Result.failure(Status.NOT_FOUND) : new Result.Number(counter.consumption, 0);
    }

    synchronized Result dump(Operation.DumpCounters dump) {
        long intervalStart = intervalStart();
        List<Result.CounterState> states = new ArrayList<>();
        counters.forEach((name, counter) -> {
            if (name.namespace().equals(dump.namespace())) {
                // Untouched in this interval: its maximum in it is simply what it holds now.
                long max = counter.lastChanged < intervalStart ? counter.consumption : counter.maxInInterval;
                states.add(new Result.CounterState(ExampleStore.bytesOf(name.name()), counter.consumption, max));
            }
        });
        return new Result.Counters(states);
    }

    /** Forgets counters at 0 that did not change in the current interval (nobody holds any of them). */
    synchronized void removeIdle() {
        long intervalStart = intervalStart();
        Iterator<Counter> all = counters.values().iterator();
        while (all.hasNext()) {
            Counter counter = all.next();
            if (counter.consumption == 0 && counter.lastChanged < intervalStart) {
                all.remove();
            }
        }
    }

    synchronized int size() {
        return counters.size();
    }

    private void change(Counter counter, long consumption) {
        // The first change in a new interval starts its maximum from the consumption the interval began with.
        if (counter.lastChanged < intervalStart()) {
            counter.maxInInterval = counter.consumption;
        }
        counter.consumption = consumption;
        counter.maxInInterval = Math.max(counter.maxInInterval, consumption);
        counter.lastChanged = seconds();
    }

    private long seconds() {
        return clock.millis() / 1000;
    }

    /** Intervals are multiples of the interval length since the epoch. */
    private long intervalStart() {
        return Math.floorDiv(seconds(), intervalSeconds) * intervalSeconds;
    }

    private static Name nameOf(Namespace namespace, byte[] name) {
        return new Name(namespace, ExampleStore.keyOf(name));
    }
}
