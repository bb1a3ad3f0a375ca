package kvgate.plugin.warmup;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import kvgate.spi.Item;
import kvgate.spi.Namespace;
import kvgate.spi.Operation;
import kvgate.spi.Result;
import kvgate.spi.RouteContext;
import kvgate.spi.Status;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Copies every item of some namespaces from the old store into the new one, in the background, so that a migration
 * ends even for keys no client asks for. Each namespace's keys come from one scan of the old store, or from a file of
 * keys the operator gives (for a store that cannot list itself), and from the keys of some tags, whose links to the
 * keys are copied too; each key is then copied as a read's fill is ({@link WarmUpRoute#copy}: read afresh from the
 * old store, added to the new one unless a write of the key came first), at most {@code concurrency} at once and
 * {@code rate} a second.
 *
 * <p>It ends honestly: done only when every namespace was listed whole (a namespace that could not be listed is a
 * WARN, the node's {@link #status} on the admin port, and {@code backfill_incomplete} instead of
 * {@code backfill_done}), and only after a verification of a sample of the listed keys, old store against new,
 * whose differences are counted in {@code backfill_verify_differs} and logged.
 *
 * <p>Runs on the gateway's scheduler and never blocks it: every step is started from the completion of the one
 * before, through the scheduler, so a store that answers at once does not deepen the stack.
 */
final class Backfill {
    private static final Logger LOG = LoggerFactory.getLogger(Backfill.class);
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
    private final LongAdder incomplete;
    private final LongAdder verifyChecked;
    private final LongAdder verifyDiffers;
    private final LongAdder tagged;
    /** Where the keys come from instead of a scan of the old store; null to scan. */
    private final Path keyFile;
    /** Tags whose keys are copied, and tagged in the new store. */
    private final List<byte[]> tags;
    /** The keys listed for the namespace being copied. */
    private int listedNow;
    /** The listed keys the verification compares: a uniform sample of at most {@code verifyKeys} (reservoir). */
    private final int verifyKeys;
    private final List<Sampled> sample = new ArrayList<>();
    private long sampledFrom;
    /** The namespaces that could not be listed, and why. Guarded by {@code this}. */
    private final List<String> unlisted = new ArrayList<>();
    /** What the backfill is doing, for the admin port. */
    private volatile String state = "starting";

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

    /** A key kept for the verification. */
    private record Sampled(Namespace namespace, byte[] key) {
    }

    /**
     * A key to copy, its expiry as the listing gave it and when that listing began (negative when the key was not
     * listed with its expiry), how many attempts it has had, and the tags it is to have in the new store.
     */
    private record Pending(byte[] key, long listedExpiry, long listedAt, int attempts, List<byte[]> tags) {
        Pending retried() {
            return new Pending(key, listedExpiry, listedAt, attempts + 1, tags);
        }

        Pending tagged(byte[] tag) {
            List<byte[]> more = new ArrayList<>(tags);
            more.add(tag);
            return new Pending(key, listedExpiry, listedAt, attempts, more);
        }
    }

    /** A namespace's keys, or why they could not be listed (and whether trying again later may do). */
    private record Listing(List<Pending> keys, String failure, boolean temporary) {
        static Listing failed(String why, boolean temporary) {
            return new Listing(null, why, temporary);
        }
    }

    /**
     * @param verifyKeys how many of the listed keys are compared, old store against new, at the end (0: none)
     * @param keyFile a file of keys, one a line (UTF-8), listed in each namespace instead of a scan; null to scan
     * @param tags tags whose keys are listed as well, each copied key then tagged in the new store
     */
    Backfill(WarmUpRoute route, List<Namespace> namespaces, RouteContext context, int concurrency, int rate,
             int scanLimit, int verifyKeys, Path keyFile, List<byte[]> tags) {
        this.verifyKeys = verifyKeys;
        this.keyFile = keyFile;
        this.tags = List.copyOf(tags);
        this.tagged = context.counter("backfill_tagged");
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
        this.incomplete = context.counter("backfill_incomplete");
        this.verifyChecked = context.counter("backfill_verify_checked");
        this.verifyDiffers = context.counter("backfill_verify_differs");
    }

    /** What the backfill is doing or how it ended, for the admin port's {@code routes}. */
    synchronized String status() {
        if (!stopped && !scanning && namespaceIndex >= 0 && namespaceIndex < namespaces.size()) {
            return "backfill copying namespace " + namespaces.get(namespaceIndex).name() + " (" + listedNow
                    + " keys listed, " + (queue.size() + underWay + waitingToRetry) + " remaining)";
        }
        return state;
    }

    void start() {
        later(this::nextNamespace, 0);
    }

    /**
     * Stops starting copies and scans. Those under way finish on their own; each is the node's background work
     * ({@link RouteContext#background}), which a reload waits for before it closes the stores.
     */
    synchronized void stop() {
        if (!stopped) {
            state = "backfill stopped (" + state + ")";
        }
        stopped = true;
        queue.clear();
    }

    private void nextNamespace() {
        Namespace namespace = null;
        synchronized (this) {
            if (stopped) {
                return;
            }
            namespaceIndex++;
            if (namespaceIndex < namespaces.size()) {
                namespace = namespaces.get(namespaceIndex);
                scanning = true;
                state = "backfill listing namespace " + namespace.name();
                LOG.info("route {}: {}", context.name(), state);
            } else if (!unlisted.isEmpty()) {
                stopped = true;
                // The state first: whoever sees the counter rise finds the state that says why.
                state = "backfill incomplete: " + String.join("; ", unlisted)
                        + "; those keys move only as they are read";
                incomplete.increment();
                return;
            } else {
                state = "backfill verifying " + sample.size() + " keys";
            }
        }
        if (namespace == null) {
            verify(0, new ArrayList<>());
        } else {
            scan(namespace);
        }
    }

    /**
     * Lists a namespace's keys, unless stopped: the check and the start of the listing as background work are one
     * step under the lock, so a reload that stopped the backfill either waits for the listing or sees none start.
     */
    private void scan(Namespace namespace) {
        CompletionStage<Listing> listing;
        synchronized (this) {
            if (stopped) {
                return;
            }
            listing = context.background(keysOf(namespace));
        }
        listing.whenComplete((listed, error) -> {
            if (listed != null && listed.keys() != null) {
                synchronized (this) {
                    for (Pending pending : listed.keys()) {
                        queue.add(pending);
                        sampled(namespace, pending.key());
                    }
                    scanning = false;
                    listedNow = listed.keys().size();
                }
                this.listed.add(listed.keys().size());
                later(this::pump, 0);
            } else if (listed != null && listed.temporary()) {
                later(() -> scan(namespace), 1000);
            } else {
                // Too many items for one scan, a store that cannot list the namespace, an unreadable key file, or an
                // unknown failure: the namespace is left to the reads' fills, and the operator is told: the backfill
                // will not say done.
                String why = listed == null ? String.valueOf(error) : listed.failure();
                LOG.warn("route {}: the backfill cannot list namespace {} of the old store ({}); its keys move only "
                        + "as they are read, and the backfill will end incomplete", context.name(), namespace.name(),
                        why);
                synchronized (this) {
                    unlisted.add("namespace " + namespace.name() + " could not be listed (" + why + ")");
                }
                namespacesFailed.increment();
                later(this::nextNamespace, 0);
            }
        });
    }

    /**
     * The namespace's keys: from the key file or a scan of the old store, then from each tag; each key once, with the
     * tags it was listed for.
     */
    private CompletionStage<Listing> keysOf(Namespace namespace) {
        long listedAt = route.listingStarts();
        CompletionStage<Listing> listed = keyFile != null
                ? CompletableFuture.supplyAsync(() -> fromFile(keyFile))
                : route.askOld(new Operation.Scan(namespace, scanLimit, true)).thenApply(result -> {
                    if (result instanceof Result.Entries entries) {
                        List<Pending> keys = new ArrayList<>(entries.entries().size());
                        for (Result.Entry entry : entries.entries()) {
                            keys.add(new Pending(entry.key(), entry.item().expiresAt(), listedAt, 0, List.of()));
                        }
                        return new Listing(keys, null, false);
                    }
                    return Listing.failed(result.toString(), result.status() == Status.TEMPORARY_FAILURE);
                });
        for (byte[] tag : tags) {
            listed = listed.thenCompose(sofar -> sofar.keys() == null ? CompletableFuture.completedFuture(sofar)
                    : route.askOld(new Operation.TaggedKeys(namespace, tag, false)).thenApply(result -> {
                        if (!(result instanceof Result.Keys keys)) {
                            return Listing.failed("the keys of tag " + new String(tag, StandardCharsets.UTF_8)
                                    + ": " + result, result.status() == Status.TEMPORARY_FAILURE);
                        }
                        Map<ByteBuffer, Pending> byKey = new LinkedHashMap<>();
                        for (Pending pending : sofar.keys()) {
                            byKey.put(ByteBuffer.wrap(pending.key()), pending);
                        }
                        for (byte[] key : keys.keys()) {
                            byKey.merge(ByteBuffer.wrap(key), new Pending(key, Item.NEVER, -1, 0, List.of(tag)),
                                    (listedBefore, ignored) -> listedBefore.tagged(tag));
                        }
                        return new Listing(new ArrayList<>(byKey.values()), null, false);
                    }));
        }
        return listed.thenApply(all -> all.keys() != null && all.keys().size() > scanLimit
                ? Listing.failed("more than backfill_limit (" + scanLimit + ") keys listed", false) : all);
    }

    /** The keys of the operator's file, one a line; blank lines are passed over. */
    private static Listing fromFile(Path file) {
        List<Pending> keys = new ArrayList<>();
        try (BufferedReader lines = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            for (String line; (line = lines.readLine()) != null; ) {
                if (!line.isBlank()) {
                    keys.add(new Pending(line.strip().getBytes(StandardCharsets.UTF_8), Item.NEVER, -1, 0,
                            List.of()));
                }
            }
        } catch (IOException e) {
            return Listing.failed("key file " + file + ": " + e.getMessage(), false);
        }
        return new Listing(keys, null, false);
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
                context.background(copyAndTag(namespace, pending))
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

    /** Copies the key; a key listed for tags then has them in the new store, or the copy counts as failed. */
    private CompletionStage<Copy> copyAndTag(Namespace namespace, Pending pending) {
        CompletionStage<Copy> copied = route.copy(namespace, pending.key(), pending.listedExpiry(),
                pending.listedAt());
        if (pending.tags().isEmpty()) {
            return copied;
        }
        return copied.thenCompose(copy -> copy.outcome() != Copy.Outcome.COPIED
                && copy.outcome() != Copy.Outcome.PRESENT ? CompletableFuture.completedFuture(copy)
                : route.tagNew(namespace, pending.key(), pending.tags()).thenApply(done -> {
                    if (!done.ok()) {
                        return Copy.failed(copy.item(), done);
                    }
                    tagged.add(pending.tags().size());
                    return copy;
                }));
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
                        queue.add(pending.retried());
                    }
                }
                pump();
            }, RETRY_MILLIS * (pending.attempts() + 1));
        }
    }

    /** Keeps a listed key in the verification's sample with the chance that keeps the sample uniform. */
    private void sampled(Namespace namespace, byte[] key) {
        if (verifyKeys == 0) {
            return;
        }
        sampledFrom++;
        if (sample.size() < verifyKeys) {
            sample.add(new Sampled(namespace, key));
        } else {
            long slot = ThreadLocalRandom.current().nextLong(sampledFrom);
            if (slot < verifyKeys) {
                sample.set((int) slot, new Sampled(namespace, key));
            }
        }
    }

    /**
     * Compares the sampled keys one after another, old store against new, then ends the backfill: done, with what
     * differs counted and the first few differing keys logged.
     */
    private void verify(int next, List<String> differing) {
        Sampled key;
        synchronized (this) {
            if (stopped) {
                return;
            }
            if (next == sample.size()) {
                stopped = true;
                String verified = sample.isEmpty() ? "" : "; " + differing.size() + " of " + sample.size()
                        + " keys compared differ between the stores";
                if (!differing.isEmpty()) {
                    LOG.warn("route {}: after the backfill, {} of {} keys compared differ between the old and the new "
                            + "store, among them {}", context.name(), differing.size(), sample.size(),
                            differing.subList(0, Math.min(5, differing.size())));
                }
                state = "backfill done" + verified;
                LOG.info("route {}: {}", context.name(), state);
                done.increment();
                return;
            }
            key = sample.get(next);
        }
        compared(key, 2, same -> {
            verifyChecked.increment();
            if (!same) {
                verifyDiffers.increment();
                differing.add(key.namespace().name() + " " + new String(key.key(), StandardCharsets.UTF_8));
            }
            later(() -> verify(next + 1, differing), 0);
        });
    }

    /**
     * Whether a key is the same in both stores, asked up to {@code attempts} times a little apart: a write or an
     * expiry between the two reads of one comparison is not a difference.
     */
    private void compared(Sampled key, int attempts, Consumer<Boolean> then) {
        context.background(route.compare(key.namespace(), key.key())).whenComplete((same, error) -> {
            if (Boolean.TRUE.equals(same) || attempts == 1) {
                then.accept(Boolean.TRUE.equals(same));
            } else {
                later(() -> compared(key, attempts - 1, then), RETRY_MILLIS);
            }
        });
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
