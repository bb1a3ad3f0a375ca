package kvgate.plugin.warmup;

import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import kvgate.spi.Namespace;
import kvgate.spi.Operation;
import kvgate.spi.Result;
import kvgate.spi.RouteContext;
import kvgate.spi.Status;

/**
 * Copies every item of some namespaces from the old store into the new one, in the background, so that a migration
 * ends even for keys no client asks for. Each namespace's keys come from one scan of the old store; each key is then
 * copied as a read's fill is ({@link WarmUpRoute#copy}: read afresh from the old store, added to the new one unless a
 * write of the key came first), at most {@code concurrency} at once and {@code rate} a second.
 *
 * <p>Runs on the gateway's scheduler and never blocks it: every step is started from the completion of the one
 * before, through the scheduler, so a store that answers at once does not deepen the stack.
 */
final class Backfill {
    /** Copies of one key that raced a write or failed are tried this often in all, a little later each time. */
    private static final int ATTEMPTS = 5;
    private static final long RETRY_MILLIS = 200;

    private final WarmUpRoute route;
    private final List<Namespace> namespaces;
    private final RouteContext context;
    private final ScheduledExecutorService scheduler;
    private final int concurrency;
    private final long nanosPerCopy;
    private final int scanLimit;
    private final LongAdder listed;
    private final LongAdder copied;
    private final LongAdder skipped;
    private final LongAdder failed;
    private final LongAdder namespacesFailed;
    private final LongAdder done;

    /** Guarded by {@code this}. */
    private final ArrayDeque<Pending> queue = new ArrayDeque<>();
    private int namespaceIndex = -1;
    private int underWay;
    private int waitingToRetry;
    private long nextStartNanos;
    private boolean pumpScheduled;
    /** Between the start of a namespace's scan and the arrival of its keys. */
    private boolean scanning;
    private boolean stopped;

    /** A key to copy, and how many attempts it has had. */
    private record Pending(byte[] key, int attempts) {
    }

    Backfill(WarmUpRoute route, List<Namespace> namespaces, RouteContext context, int concurrency, int rate,
             int scanLimit) {
        this.route = route;
        this.namespaces = List.copyOf(namespaces);
        this.context = context;
        this.scheduler = context.scheduler();
        this.concurrency = concurrency;
        this.nanosPerCopy = rate == 0 ? 0 : TimeUnit.SECONDS.toNanos(1) / rate;
        this.scanLimit = scanLimit;
        this.listed = context.counter("backfill_listed");
        this.copied = context.counter("backfill_copied");
        this.skipped = context.counter("backfill_skipped");
        this.failed = context.counter("backfill_failed");
        this.namespacesFailed = context.counter("backfill_namespaces_failed");
        this.done = context.counter("backfill_done");
    }

    void start() {
        later(this::nextNamespace, 0);
    }

    /**
     * Stops starting copies and scans. Those under way finish on their own; each is the node's background work
     * ({@link RouteContext#background}), which a reload waits for before it closes the stores.
     */
    synchronized void stop() {
        stopped = true;
        queue.clear();
    }

    private void nextNamespace() {
        Namespace namespace;
        synchronized (this) {
            if (stopped) {
                return;
            }
            namespaceIndex++;
            if (namespaceIndex == namespaces.size()) {
                stopped = true;
                done.increment();
                return;
            }
            namespace = namespaces.get(namespaceIndex);
            scanning = true;
        }
        scan(namespace);
    }

    /**
     * Lists a namespace of the old store, unless stopped: the check and the start of the scan as background work are
     * one step under the lock, so a reload that stopped the backfill either waits for the scan or sees none start.
     */
    private void scan(Namespace namespace) {
        CompletionStage<Result> listing;
        synchronized (this) {
            if (stopped) {
                return;
            }
            listing = context.background(route.scanOld(new Operation.Scan(namespace, scanLimit)));
        }
        listing.whenComplete((result, error) -> {
            if (result instanceof Result.Entries entries) {
                synchronized (this) {
                    for (Result.Entry entry : entries.entries()) {
                        queue.add(new Pending(entry.key(), 0));
                    }
                    scanning = false;
                }
                listed.add(entries.entries().size());
                later(this::pump, 0);
            } else if (result != null && result.status() == Status.TEMPORARY_FAILURE) {
                later(() -> scan(namespace), 1000);
            } else {
                // Too many items for one scan, a store that cannot list the namespace, or an unknown failure: the
                // namespace is left to the reads' fills, and the counter tells the operator.
                namespacesFailed.increment();
                later(this::nextNamespace, 0);
            }
        });
    }

    /** Starts as many copies as the concurrency and the rate allow; moves on when the namespace is done. */
    private void pump() {
        boolean namespaceDone = false;
        synchronized (this) {
            pumpScheduled = false;
            while (!stopped && underWay < concurrency && !queue.isEmpty()) {
                if (nanosPerCopy > 0) {
                    long now = System.nanoTime();
                    if (now < nextStartNanos) {
                        schedulePump(TimeUnit.NANOSECONDS.toMillis(nextStartNanos - now) + 1);
                        return;
                    }
                    nextStartNanos = Math.max(nextStartNanos, now - TimeUnit.MILLISECONDS.toNanos(100))
                            + nanosPerCopy;
                }
                Pending pending = queue.poll();
                underWay++;
                Namespace namespace = namespaces.get(namespaceIndex);
                context.background(route.copy(namespace, pending.key()))
                        .whenComplete((copy, error) -> finished(pending, copy));
            }
            if (!stopped && !scanning && queue.isEmpty() && underWay == 0 && waitingToRetry == 0) {
                namespaceDone = true;
                scanning = true; // no other pump moves on as well
            }
        }
        if (namespaceDone) {
            nextNamespace();
        }
    }

    private void finished(Pending pending, Copy copy) {
        Copy.Outcome outcome = copy == null ? Copy.Outcome.FAILED : copy.outcome();
        boolean retry = false;
        switch (outcome) {
            case COPIED -> copied.increment();
            case PRESENT, ABSENT -> skipped.increment();
            default -> retry = pending.attempts() + 1 < ATTEMPTS;
        }
        if (!retry && (outcome == Copy.Outcome.RACED || outcome == Copy.Outcome.FAILED)) {
            failed.increment();
        }
        synchronized (this) {
            underWay--;
            if (retry) {
                waitingToRetry++;
            }
            schedulePump(0);
        }
        if (retry) {
            later(() -> {
                synchronized (this) {
                    waitingToRetry--;
                    if (!stopped) {
                        queue.add(new Pending(pending.key(), pending.attempts() + 1));
                    }
                }
                pump();
            }, RETRY_MILLIS * (pending.attempts() + 1));
        }
    }

    /** Guarded by {@code this}: one pump pending at a time. */
    private void schedulePump(long delayMillis) {
        if (!pumpScheduled && !stopped) {
            pumpScheduled = true;
            later(this::pump, delayMillis);
        }
    }

    private void later(Runnable step, long delayMillis) {
        try {
            scheduler.schedule(step, delayMillis, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            stop(); // the gateway is shutting down
        }
    }
}
