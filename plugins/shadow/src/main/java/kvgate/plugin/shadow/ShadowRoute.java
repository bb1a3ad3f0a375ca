package kvgate.plugin.shadow;

import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import kvgate.spi.Item;
import kvgate.spi.Namespace;
import kvgate.spi.Operation;
import kvgate.spi.Result;
import kvgate.spi.Route;
import kvgate.spi.RouteContext;
import kvgate.spi.Status;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Answers every operation from the primary route and sends the ones its {@link MirrorPolicy} picks to the shadow
 * route as well (mcrouter's shadow settings): the client never waits for the shadow, and the shadow's answer never
 * reaches it. Each mirrored answer is compared with the primary's once both are in, and counted by {@link Verdict}.
 *
 * <p>The shadow gets a key's operations in the order the primary got them, also where a write with a CAS must wait
 * for the primary's answer before it can be mirrored ({@link MirrorQueue}).
 *
 * <p>At most {@code maxInflight} mirrored operations are outstanding at once, at the shadow or waiting to be sent;
 * beyond that an operation is not mirrored and is counted as skipped, so a slow or stopped shadow costs a bounded
 * amount of memory. A shadow request unanswered after {@code timeoutMillis} is counted as failed (its place is freed
 * when the shadow answers it: the shadow backend's own timeout ends the request itself).
 *
 * <p>A mirrored write skipped or failed leaves the shadow behind on its item; later differences there are counted
 * as {@code behind}, not as mismatches, until a matched write levels the item again ({@link BehindKeys}).
 *
 * <p>A mirrored read reaches the shadow only after every mirrored write of its key picked before it has been answered
 * there, whatever thread either came from, and the key's writes picked after it wait behind it, so a client reading
 * on one connection what it wrote on another is compared like with like; a read that raced a write of its key is
 * {@code undecidable} if the answers differ ({@link ReadOrder}).
 *
 * <p>Counters: {@code mirrored} (sent to the shadow) = {@code matched} + {@code mismatched} + {@code behind}
 * + {@code undecidable} + {@code shadow_failed} + {@code primary_failed} once every answer is in; {@code skipped} operations were not
 * sent. Values in results are plain arrays ({@link kvgate.spi.Item}), so dropping the shadow's results releases
 * nothing. The node keeps no background work of its own ({@link Route#close} has nothing to stop): a pending timeout
 * ends by itself. Each mirrored operation is the node's work after its answer until its place is free
 * ({@link RouteContext#background}), so that a reload closes the shadow's store only once its requests are done.
 */
final class ShadowRoute implements Route {
    private static final Logger LOG = LoggerFactory.getLogger(ShadowRoute.class);
    static final String MIRRORED = "mirrored";
    static final String SKIPPED = "skipped";
    static final String LATE = "late";

    private final String name;
    private final Route primary;
    private final Route shadow;
    private final MirrorPolicy policy;
    private final int maxInflight;
    private final long timeoutMillis;
    private final ScheduledExecutorService scheduler;
    /** Places taken: operations sent to the shadow and not yet answered, or waiting in {@link #queue}. */
    private final AtomicInteger inflight = new AtomicInteger();
    private final MirrorQueue queue = new MirrorQueue(this::send);
    private final ReadOrder order = new ReadOrder();
    private final BehindKeys behind;
    private final LongAdder mirrored;
    private final LongAdder skipped;
    /** Mirrored operations the shadow answered only after the timeout: their places were held until then. */
    private final LongAdder late;
    private final Map<Verdict, LongAdder> verdicts = new EnumMap<>(Verdict.class);
    private final ThrottledLog mismatches = new ThrottledLog(LOG, 1, TimeUnit.SECONDS, System::nanoTime);
    private final ThrottledLog failures = new ThrottledLog(LOG, 1, TimeUnit.SECONDS, System::nanoTime);
    private final RouteContext.Background background;

    ShadowRoute(String name, Route primary, Route shadow, MirrorPolicy policy, int maxInflight, long timeoutMillis,
                int maxBehindKeys, ScheduledExecutorService scheduler, RouteContext.Counters counters,
                RouteContext.Background background) {
        this.name = name;
        this.background = background;
        this.primary = primary;
        this.shadow = shadow;
        this.policy = policy;
        this.maxInflight = maxInflight;
        this.timeoutMillis = timeoutMillis;
        this.scheduler = scheduler;
        this.behind = new BehindKeys(maxBehindKeys);
        // Every counter is created now, so that stats show them at 0 before anything happened.
        this.mirrored = counters.counter(MIRRORED);
        this.skipped = counters.counter(SKIPPED);
        this.late = counters.counter(LATE);
        for (Verdict verdict : Verdict.values()) {
            verdicts.put(verdict, counters.counter(verdict.counter()));
        }
    }

    @Override
    public CompletionStage<Result> execute(Operation operation) {
        CompletionStage<Result> answer = primary.execute(operation);
        if (policy.mirrors(operation)) {
            mirror(List.of(operation), Collections.singletonList(answer));
        }
        return answer;
    }

    /** Names the primary, and the shadow when this operation would be mirrored (were a place free). */
    @Override
    public Step explain(Operation operation) {
        return policy.mirrors(operation)
                ? new Step("answers from the primary, mirrors to the shadow and compares", List.of(primary, shadow))
                : new Step("answers from the primary; not mirrored", List.of(primary));
    }

    /** The burst reaches the primary as one batch, and its mirrored part the shadow as another. */
    @Override
    public List<CompletionStage<Result>> executeAll(List<Operation> operations) {
        if (operations.isEmpty()) {
            return List.of();
        }
        List<CompletionStage<Result>> answers = Route.executeAllSelected(primary, operations);
        List<Operation> picked = new ArrayList<>(operations.size());
        List<CompletionStage<Result>> pickedAnswers = new ArrayList<>(operations.size());
        for (int i = 0; i < operations.size(); i++) {
            if (policy.mirrors(operations.get(i))) {
                picked.add(operations.get(i));
                pickedAnswers.add(answers.get(i));
            }
        }
        if (!picked.isEmpty()) {
            mirror(picked, pickedAnswers);
        }
        return answers;
    }

    /**
     * Sends to the shadow, in one batch, those of the operations a place is free for and that need not wait for an
     * earlier one ({@link MirrorQueue}). A place is taken at once, whether the operation goes now or waits, so that
     * operations waiting are bounded by {@code maxInflight} too.
     */
    private void mirror(List<Operation> operations, List<CompletionStage<Result>> answers) {
        List<Mirrored> now = new ArrayList<>(operations.size());
        for (int i = 0; i < operations.size(); i++) {
            if (!takePlace()) {
                skipped.increment();
                behind.fellBehind(operations.get(i));
                continue;
            }
            Mirrored picked = new Mirrored(operations.get(i), Route.guarded(answers.get(i)));
            // The shadow's work after the client's answer: a reload closes the shadow's store only once it is done.
            background.track(picked.place());
            if (flushesNow(picked.operation())) {
                // What its namespace holds goes before it, as the primary applied it before the flush.
                List<Mirrored> overtaken = new ArrayList<>();
                List<Mirrored> before = order.flushPicked(picked, overtaken);
                if (!before.isEmpty()) {
                    send(now);
                    now = new ArrayList<>(operations.size() - i);
                    sendReleased(before);
                }
                overtaken.forEach(this::drop);
                dropWaitingBefore((Operation.Flush) picked.operation());
                Namespace namespace = picked.operation().namespace();
                picked.answer().whenComplete((result, error) -> order.flushAnswered(namespace));
                now.add(picked);
            } else if (!ordered(picked)) {
                now = queued(List.of(picked), now);
            }
        }
        send(now);
    }

    /**
     * Adds operations free to go, in order, to {@code now}, the list about to be sent, but for writes that must wait
     * in the {@link MirrorQueue}; returns the list to go on with. A read comes here only once every write of its key
     * before it is done at the shadow, so nothing of its key waits in the queue before it.
     */
    private List<Mirrored> queued(List<Mirrored> free, List<Mirrored> now) {
        List<Mirrored> batch = now;
        for (Mirrored picked : free) {
            if (ReadOrder.isRead(picked.operation())) {
                batch.add(picked);
                continue;
            }
            if (!picked.ready() && !batch.isEmpty()) {
                // The operations before a write that must wait go first: once held, the write may be released (its
                // primary answering on another thread) before they would be sent.
                send(batch);
                batch = new ArrayList<>();
            }
            if (!queue.hold(picked)) {
                batch.add(picked);
            }
        }
        return batch;
    }

    /**
     * Drops the operations of a flushed namespace still waiting behind a write with a CAS: the primary applies them
     * before the flush, which leaves it without their keys, and the shadow, which gets the flush at once, is left the
     * same way only if they never reach it. They are counted as skipped and free their places. A delayed flush
     * empties the stores after them, so they go on as they are.
     */
    private void dropWaitingBefore(Operation.Flush flush) {
        for (Mirrored dropped : queue.dropNamespace(flush.namespace())) {
            skipped.increment();
            freePlace(dropped);
        }
    }

    /**
     * Enters a key's operation in its key's {@link ReadOrder}: a write is counted until the shadow answers it, a
     * read gets its ticket. Returns true when it must wait there (it is held, and sent when released).
     */
    private boolean ordered(Mirrored picked) {
        Operation operation = picked.operation();
        ItemKey key = ItemKey.of(operation);
        if (key == null) {
            return false;
        }
        if (ReadOrder.isWrite(operation)) {
            boolean held = order.writePicked(picked);
            picked.answer().whenComplete((result, error) -> order.writeAnswered(key));
            return held;
        }
        return ReadOrder.isRead(operation) && order.readPicked(key, picked).waits;
    }

    private boolean takePlace() {
        if (inflight.incrementAndGet() > maxInflight) {
            inflight.decrementAndGet();
            return false;
        }
        return true;
    }

    /**
     * Frees an operation's place; a write's (or a flush's) ends its wait in the order of its key (or namespace), which
     * may send reads held behind it.
     */
    private void freePlace(Mirrored picked) {
        inflight.decrementAndGet();
        picked.place().complete(null);
        List<Mirrored> released = ReadOrder.isWrite(picked.operation()) ? order.writeDone(picked)
                : flushesNow(picked.operation()) ? order.flushDone(picked) : List.of();
        if (!released.isEmpty()) {
            sendReleased(released);
        }
    }

    /**
     * Sends operations released from the {@link ReadOrder}, then, key by key, what was picked of their keys while
     * they were on the way ({@link ReadOrder#handedOn}), until nothing more may go.
     */
    private void sendReleased(List<Mirrored> released) {
        List<Mirrored> run = released;
        while (!run.isEmpty()) {
            send(queued(run, new ArrayList<>(run.size())));
            Set<ItemKey> keys = new LinkedHashSet<>();
            run.forEach(picked -> keys.add(ItemKey.of(picked.operation())));
            List<Mirrored> next = new ArrayList<>();
            keys.forEach(key -> next.addAll(order.handedOn(key)));
            run = next;
        }
    }

    /**
     * Drops an operation a flush overtook: held behind a run of its key that another thread is sending, it could
     * reach the shadow only after the flush, which the primary applied after it. Counted as skipped; a write leaves
     * the shadow behind on its item, as a skipped write does.
     */
    private void drop(Mirrored overtaken) {
        skipped.increment();
        Operation operation = overtaken.operation();
        if (ReadOrder.isRead(operation)) {
            order.readJudged(ItemKey.of(operation), overtaken.ticket());
        } else {
            behind.fellBehind(operation);
        }
        freePlace(overtaken);
    }

    /** A flush that empties its namespace at once: a write of every key in it, for {@link ReadOrder}. */
    private static boolean flushesNow(Operation operation) {
        return operation instanceof Operation.Flush flush && flush.delayMillis() == 0;
    }

    /**
     * Starts the operations on the shadow, each holding its place until it is answered or times out. A write checked
     * against the primary's CAS goes without the CAS, and only if the primary took it, so that the shadow applies the
     * writes the primary applied; one the primary refused frees its place unsent.
     */
    private void send(List<Mirrored> ready) {
        List<Operation> operations = new ArrayList<>(ready.size());
        List<Mirrored> sent = new ArrayList<>(ready.size());
        for (Mirrored picked : ready) {
            Operation operation = picked.operation();
            if (MirrorPolicy.checksCas(operation)) {
                Result fromPrimary = picked.answer().toCompletableFuture().join();
                if (!fromPrimary.ok()) {
                    freePlace(picked);
                    if (Verdict.failedUnknowably(fromPrimary)) {
                        // Whether the primary applied it is unknown, so the shadow may now differ either way.
                        behind.fellBehind(operation);
                    }
                    continue;
                }
                operation = MirrorPolicy.withoutCas(operation);
            }
            operations.add(operation);
            sent.add(picked);
        }
        if (operations.isEmpty()) {
            return;
        }
        mirrored.add(operations.size());
        List<CompletionStage<Result>> replies;
        try {
            replies = Route.executeAllSelected(shadow, operations);
            if (replies == null || replies.size() != operations.size()) {
                throw new IllegalStateException("the shadow started " + (replies == null ? "no" : replies.size())
                        + " operations of " + operations.size());
            }
        } catch (RuntimeException e) {
            replies = Collections.nCopies(operations.size(), CompletableFuture.completedFuture(Result.backendError(e)));
        }
        for (int i = 0; i < operations.size(); i++) {
            await(operations.get(i), sent.get(i), replies.get(i));
        }
    }

    /**
     * Waits for the shadow's reply to one operation, or the timeout, whichever comes first, and compares it with the
     * primary's answer. The operation's place is freed only when the shadow has answered: a request past the timeout
     * is still held at the shadow, and freeing its place then let a shadow that stopped answering take requests
     * without bound.
     */
    private void await(Operation operation, Mirrored picked, CompletionStage<Result> reply) {
        // Freed before the reply is compared, so that whoever sees the verdict counted finds the place free; and
        // before a late reply is counted, so that whoever sees it counted finds its place free too.
        long sentAt = System.nanoTime();
        CompletionStage<Result> replied = Route.guarded(reply).whenComplete((result, error) -> {
            freePlace(picked);
            if (System.nanoTime() - sentAt >= TimeUnit.MILLISECONDS.toNanos(timeoutMillis)) {
                late.increment();
            }
        });
        CompletionStage<Result> answer = picked.answer();
        Route.withDeadline(replied, timeoutMillis,
                Result.failure(Status.TEMPORARY_FAILURE, "no answer within " + timeoutMillis + " ms"), scheduler)
                .thenAccept(fromShadow -> answer.thenAccept(fromPrimary -> judge(operation, picked, fromPrimary,
                        fromShadow)));
    }

    private void judge(Operation operation, Mirrored picked, Result fromPrimary, Result fromShadow) {
        Verdict verdict = Verdict.of(fromPrimary, fromShadow);
        if (picked.ticket() != null && order.readJudged(ItemKey.of(operation), picked.ticket())
                && verdict == Verdict.MISMATCHED) {
            verdict = Verdict.UNDECIDABLE; // a write of the key raced the read: either answer may be right
        }
        switch (verdict) {
            case MATCHED -> behind.matched(operation, fromPrimary);
            case SHADOW_FAILED, PRIMARY_FAILED -> behind.fellBehind(operation);
            case MISMATCHED -> verdict = behind.isBehind(operation) ? verdict.givenShadowBehind() : verdict;
            case BEHIND, UNDECIDABLE -> { }
        }
        verdicts.get(verdict).increment();
        if (verdict == Verdict.MISMATCHED) {
            mismatches.warn(() -> this + ": " + subject(operation) + " differs: primary " + describe(fromPrimary)
                    + ", shadow " + describe(fromShadow));
        } else if (verdict == Verdict.SHADOW_FAILED) {
            failures.warn(() -> this + ": the shadow failed " + subject(operation) + ": " + describe(fromShadow));
        }
    }

    /** The operation and its key, for a log line. */
    static String subject(Operation operation) {
        String kind = operation.getClass().getSimpleName().toLowerCase(Locale.ROOT);
        byte[] key = MirrorPolicy.keyOf(operation);
        return kind + (key == null ? " of namespace " + operation.namespace() : " of key " + printable(key, 100));
    }

    /** A result for a log line: its status, and what it holds that is compared. */
    static String describe(Result result) {
        Item item = result instanceof Result.Value value ? value.item()
                : result instanceof Result.Leased leased ? leased.item() : null;
        if (item != null) {
            byte[] bytes = item.value();
            return "OK, flags " + Integer.toUnsignedString(item.flags()) + ", " + bytes.length + " bytes "
                    + printable(bytes, 32);
        } else if (result instanceof Result.Number number) {
            return "OK, " + Long.toUnsignedString(number.value());
        } else if (result instanceof Result.Failure failure) {
            return failure.status() + (failure.message().isEmpty() ? "" : " (" + failure.message() + ")");
        }
        return "OK (" + result.getClass().getSimpleName().toLowerCase(Locale.ROOT) + ")";
    }

    /** Up to {@code limit} bytes as quoted text, bytes outside printable ASCII as \xNN. */
    static String printable(byte[] bytes, int limit) {
        StringBuilder text = new StringBuilder("\"");
        for (int i = 0; i < Math.min(bytes.length, limit); i++) {
            int b = bytes[i] & 0xff;
            if (b >= 0x20 && b < 0x7f && b != '"' && b != '\\') {
                text.append((char) b);
            } else {
                text.append(String.format("\\x%02x", b));
            }
        }
        return text.append(bytes.length > limit ? "\"..." : "\"").toString();
    }

    @Override
    public String toString() {
        return "route " + name + " (" + ShadowRouteFactory.TYPE + ")";
    }
}
