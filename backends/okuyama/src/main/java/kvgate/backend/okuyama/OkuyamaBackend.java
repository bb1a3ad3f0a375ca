package kvgate.backend.okuyama;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import java.util.function.Predicate;
import kvgate.spi.Backend;
import kvgate.spi.BlockingWork;
import kvgate.spi.Capability;
import kvgate.spi.Item;
import kvgate.spi.ItemTransition;
import kvgate.spi.KeyOrder;
import kvgate.spi.Namespace;
import kvgate.spi.OkuyamaVersions;
import kvgate.spi.Operation;
import kvgate.spi.Result;
import kvgate.spi.Status;
import kvgate.spi.StoreMode;

/**
 * A running okuyama cluster as a backend, through its MasterNodes' okuyama protocol. What okuyama has natively maps
 * to its request codes: a get is a version read (15), whose version is the item's CAS; a set is 1, an add 6. What it
 * lacks is built from those with {@link ItemTransition}: the operation's effect is computed from a version read and
 * written with the version check (16, or 6 for a key that was missing), and read again on a lost race, so replace,
 * CAS stores, append, prepend, arithmetic and touch keep memcached's semantics. A store reads the key's version back
 * in the same round trip (the master answers a connection's lines in order) for the CAS it answers.
 *
 * <p>okuyama keeps no flags, and its reads do not tell an item's expiry: a store with flags is refused, an item read
 * has no expiry (its DataNodes' export, which the exhaustive scan reads, does tell it), and a write that keeps an
 * item's expiry (append, prepend, arithmetic) leaves it without one, as okuyama's own incr does. A delete with a CAS
 * checks the version, then removes the key: two requests, not one atomic step.
 *
 * <p>A key's operations run one after another ({@link KeyOrder}): each may take several round trips, and a get
 * pipelined behind an append must read what the append wrote.
 */
final class OkuyamaBackend implements Backend {
    /** okuyama's stand-in for an empty value. */
    static final String BLANK = "(B)";
    /** Requests of a flush or a search under way at once. */
    private static final int WAVE = 256;
    /** Races lost to other writers before a read-modify-write gives up. */
    private static final int ATTEMPTS = 10;

    private final Masters masters;
    private final OkuyamaKeys keys;
    /** The main DataNodes, each with the replicas read in its place when it cannot be. */
    private final List<List<NodeAddress>> dataNodes;
    private final Clock clock;
    private final int maxItemSize;
    private final int timeoutMillis;
    private final KeyOrder order = new KeyOrder();
    /** Where the DataNodes' exports are read: blocking reads, never on a network thread. */
    private final BlockingWork lister = new BlockingWork("kvgate-okuyama-listing");

    OkuyamaBackend(Masters masters, OkuyamaKeys keys, List<List<NodeAddress>> dataNodes, Clock clock, int maxItemSize,
                   int timeoutMillis) {
        this.masters = masters;
        this.keys = keys;
        this.dataNodes = List.copyOf(dataNodes);
        this.clock = clock;
        this.maxItemSize = maxItemSize;
        this.timeoutMillis = timeoutMillis;
    }

    @Override
    public Set<Capability> capabilities() {
        return EnumSet.of(Capability.SHARED);
    }

    @Override
    public CompletionStage<Result> execute(Operation operation) {
        if (operation instanceof Operation.KeyOperation keyed) {
            if (keyed.key().length == 0) {
                return done(Result.failure(Status.INVALID, "an empty key"));
            }
            String key = keys.encode(keyed.namespace(), keyed.key());
            boolean own = keyed.namespace().equals(keys.own());
            return order.inOrder(key, () -> keyOperation(keyed, key, own));
        }
        if (operation instanceof Operation.Scan scan) {
            return scan(scan);
        }
        if (operation instanceof Operation.Flush flush) {
            return flush(flush);
        }
        if (operation instanceof Operation.TaggedKeys query && query.namespace().equals(keys.own())) {
            return tagKeys(query);
        }
        if (operation instanceof Operation.Untag untag && untag.namespace().equals(keys.own())) {
            return untag(untag);
        }
        if (operation instanceof Operation.Search query && query.namespace().equals(keys.own())
                && query.gramLength() > 0) {
            return search(query);
        }
        if (operation instanceof Operation.Unindex unindex && unindex.namespace().equals(keys.own())
                && unindex.gramLength() > 0) {
            return unindex(unindex);
        }
        return done(Result.failure(Status.UNSUPPORTED, "the okuyama backend does not "
                + operation.getClass().getSimpleName().toLowerCase(Locale.ROOT)));
    }

    private CompletionStage<Result> keyOperation(Operation.KeyOperation operation, String key, boolean own) {
        if (operation instanceof Operation.Get) {
            return read(key, own);
        }
        if (operation instanceof Operation.Store store) {
            if (own && store.flags() != 0) {
                return done(Result.failure(Status.UNSUPPORTED, "okuyama keeps no flags (flags " + store.flags()
                        + ")"));
            }
            if (store.value().length > maxItemSize) {
                return done(Result.failure(Status.TOO_LARGE));
            }
            if (store.cas() == 0 && (store.mode() == StoreMode.SET || store.mode() == StoreMode.ADD)) {
                String code = store.mode() == StoreMode.SET ? "1" : "6";
                byte[] stored = StoredValues.encode(own, store.value(), store.flags(), store.expiresAt());
                return send(writing(code, key, stored, null, store.expiresAt()), stored)
                        .thenApply(written -> written.outcome() == Outcome.REFUSED
                                ? Result.failure(Status.EXISTS) : written.result(new Result.Stored(0)));
            }
        }
        if (operation instanceof Operation.Delete delete && delete.cas() == 0) {
            return request("5," + key + ",0", false).thenApply(reply -> {
                if (reply instanceof Reply.Line line) {
                    String[] fields = line.fields("5", 3);
                    if (fields != null && fields[1].equals("true")) {
                        return new Result.Removed(StoredValues.decode(own, value(fields[2]), OkuyamaVersions.NONE));
                    }
                    if (fields != null && fields[1].equals("false") && fields[2].isEmpty()) {
                        return Result.failure(Status.NOT_FOUND);
                    }
                }
                return reply.failure();
            });
        }
        return transition(operation, key, own, 1);
    }

    /**
     * The keys the cluster links to a tag (3, answered as 4): the tags okuyama's own clients gave. The gateway keeps
     * the tags written through it in records of its own and adds these to them (the backend does not declare
     * {@link Capability#TAGS}, since okuyama links a tag to a key only as it writes the key's value).
     */
    private CompletionStage<Result> tagKeys(Operation.TaggedKeys query) {
        String tag = OkuyamaKeys.encode(query.tag());
        return request("3," + tag + "," + query.includeRemoved(), true).thenApply(reply -> {
            if (reply instanceof Reply.Line line) {
                String[] fields = line.fields("4", 3);
                if (fields != null && fields[1].equals("true")) {
                    return new Result.Keys(listedKeys(query.namespace(), fields[2]));
                }
                if (fields != null && fields[1].equals("false")) {
                    return new Result.Keys(List.of());
                }
            }
            return reply.failure();
        });
    }

    /** Takes a key off one of the cluster's own tags (40, removeTagFromKey). */
    private CompletionStage<Result> untag(Operation.Untag untag) {
        String line = "40," + OkuyamaKeys.encode(untag.tag()) + "," + keys.encode(untag.namespace(), untag.key())
                + ",0";
        return request(line, false).thenApply(reply -> {
            if (reply instanceof Reply.Line answer) {
                String[] fields = answer.fields("40", 3);
                if (fields != null && fields[1].equals("true")) {
                    return Result.DONE;
                }
                if (fields != null && fields[1].equals("false")) {
                    return Result.failure(Status.NOT_FOUND);
                }
            }
            return reply.failure();
        });
    }

    /**
     * The keys okuyama's own n-gram index finds (43, searchValue), as its clients indexed them
     * (setValueAndCreateIndex), each kept only if its current value holds the words, as the gateway's own search
     * answers. The gateway adds these to the keys its own index finds.
     */
    private CompletionStage<Result> search(Operation.Search query) {
        StringBuilder words = new StringBuilder();
        for (Operation.Search.Word word : query.words()) {
            words.append(words.length() == 0 ? "" : ":")
                    .append(OkuyamaKeys.encode(word.text().getBytes(StandardCharsets.UTF_8)));
        }
        String line = "43," + words + "," + (query.all() ? "1" : "2") + "," + group(query.group()) + ","
                + query.gramLength();
        return request(line, true).thenCompose(reply -> {
            if (reply instanceof Reply.Line answer) {
                String[] fields = answer.fields("43", 3);
                if (fields != null && fields[1].equals("true")) {
                    return matching(query, listedKeys(query.namespace(), fields[2]));
                }
                if (fields != null && fields[1].equals("false")) {
                    return done(new Result.Keys(List.of()));
                }
            }
            return done(reply.failure());
        });
    }

    /**
     * The keys of a namespace in a list okuyama answers (keys joined by ':'), in its order; the blank stand-in and the
     * keys of other namespaces are left out.
     */
    private List<byte[]> listedKeys(Namespace namespace, String listed) {
        List<byte[]> found = new ArrayList<>();
        for (String encoded : listed.split(":")) {
            byte[] key = encoded.isEmpty() || encoded.equals(BLANK) ? null : keys.decoded(namespace, encoded);
            if (key != null) {
                found.add(key);
            }
        }
        return found;
    }

    /** The hits whose current value holds the words, in the order found, read a wave at a time. */
    private CompletionStage<Result> matching(Operation.Search query, List<byte[]> hits) {
        return inWaves(hits, key -> read(keys.encode(query.namespace(), key), true).thenApply(read ->
                read instanceof Result.Value value
                        && query.matches(new String(value.item().value(), StandardCharsets.UTF_8)) ? key : null),
                kept -> false).thenApply(kept -> {
                    List<byte[]> found = new ArrayList<>(kept.size());
                    for (byte[] key : kept) {
                        if (key != null) {
                            found.add(key);
                        }
                    }
                    return new Result.Keys(found);
                });
    }

    /** Takes a key off okuyama's own n-gram index (44, removeSearchIndex), which cuts its current value itself. */
    private CompletionStage<Result> unindex(Operation.Unindex unindex) {
        String line = "44," + keys.encode(unindex.namespace(), unindex.key()) + ",0," + group(unindex.group()) + ","
                + unindex.gramLength();
        return request(line, false).thenApply(reply -> {
            String[] fields = reply instanceof Reply.Line answer ? answer.fields("44", 3) : null;
            return fields != null && !fields[1].equals("error") ? Result.DONE : reply.failure();
        });
    }

    /** An index group (okuyama's index prefix) as requests carry it. */
    private static String group(String group) {
        return group.isEmpty() ? BLANK : OkuyamaKeys.encode(group.getBytes(StandardCharsets.UTF_8));
    }

    /** A version read (15): the item, with the version as its CAS and no expiry (okuyama's reads do not tell it). */
    private CompletionStage<Result> read(String key, boolean own) {
        return request("15," + key, true).thenApply(reply -> readResult(reply, own));
    }

    private static Result readResult(Reply reply, boolean own) {
        if (reply instanceof Reply.Line line) {
            String[] fields = line.fields("15", 4);
            if (fields != null && fields[1].equals("true") && fields.length == 4) {
                return new Result.Value(StoredValues.decode(own, value(fields[2]), OkuyamaVersions.cas(fields[3])));
            }
            if (fields != null && fields[1].equals("false") && fields[2].isEmpty()) {
                return Result.failure(Status.NOT_FOUND); // missing, or expired
            }
        }
        return reply.failure();
    }

    /**
     * What {@code operation} does to the item okuyama holds now, written with a version check: 16 against the
     * version read, or 6 where the key was missing. A lost race (the check failed) reads again.
     */
    private CompletionStage<Result> transition(Operation.KeyOperation operation, String key, boolean own,
                                               int attempt) {
        return read(key, own).thenCompose(read -> {
            Item current;
            if (read instanceof Result.Value value) {
                current = value.item();
            } else if (read.status() == Status.NOT_FOUND) {
                current = null;
            } else {
                return done(read);
            }
            ItemTransition transition = ItemTransition.apply(operation, current, clock.millis(), () -> 0,
                    maxItemSize);
            return switch (transition.effect()) {
                case NONE -> done(transition.result());
                case REMOVE -> current == null ? done(transition.result())
                        : request("5," + key + ",0", false).thenApply(reply -> reply instanceof Reply.Line line
                                && line.fields("5", 3) != null ? transition.result() : reply.failure());
                case PUT -> {
                    Item next = transition.next();
                    byte[] stored = StoredValues.encode(own, next.value(), next.flags(), next.expiresAt());
                    List<MasterRequest> requests = current == null
                            ? writing("6", key, stored, null, next.expiresAt())
                            : writing("16", key, stored, OkuyamaVersions.version(current.cas()), next.expiresAt());
                    yield send(requests, stored).thenCompose(written -> {
                        if (written.outcome() != Outcome.REFUSED) {
                            return done(written.result(transition.result()));
                        }
                        if (attempt < ATTEMPTS) {
                            return transition(operation, key, own, attempt + 1);
                        }
                        return done(Result.failure(Status.TEMPORARY_FAILURE, "the key changed " + ATTEMPTS
                                + " times while this operation was applied to it"));
                    });
                }
            };
        });
    }

    /**
     * A write request ({@code 1}, {@code 6} or {@code 16}), then a version read of the key right behind it on the
     * same connection, for the CAS of what was written.
     *
     * @param version the version 16 checks, null for the others
     */
    private List<MasterRequest> writing(String code, String key, byte[] value, String version, long expiresAt) {
        StringBuilder line = new StringBuilder(code.length() + key.length() + value.length * 4 / 3 + 48)
                .append(code).append(',').append(key).append(',').append(BLANK).append(",0,")
                .append(value.length == 0 ? BLANK : OkuyamaKeys.encode(value));
        if (version != null) {
            line.append(',').append(version);
        }
        if (expiresAt != Item.NEVER) {
            // Relative seconds, rounded up; a trailing comma is what tells okuyama the field is there.
            line.append(',').append(seconds(expiresAt)).append(',');
        }
        return List.of(new MasterRequest(line.toString(), false), new MasterRequest("15," + key, true));
    }

    private long seconds(long expiresAt) {
        long left = expiresAt - clock.millis();
        // okuyama reads 0 as "never" and a negative period as "already expired".
        return left <= 0 ? -1 : Math.min(Integer.MAX_VALUE, (left + 999) / 1000);
    }

    private enum Outcome { WRITTEN, REFUSED, FAILED }

    /** How a write went, and the version read right after it. */
    private record Written(Outcome outcome, Result failure, long cas) {
        /** {@code success} with the CAS of what was written, or the write's failure. */
        Result result(Result success) {
            if (outcome != Outcome.WRITTEN) {
                return failure;
            }
            if (success instanceof Result.Stored) {
                return new Result.Stored(cas);
            }
            if (success instanceof Result.Number number) {
                return new Result.Number(number.value(), cas);
            }
            if (success instanceof Result.Value value) {
                Item item = value.item();
                return new Result.Value(new Item(item.value(), item.flags(), cas, item.expiresAt()));
            }
            return success;
        }
    }

    /**
     * Sends a write and its version read. The CAS answered is the version read when the value read is the one
     * written; when another writer came between the two (or the read failed), a CAS no version has, so that a CAS
     * store naming it fails rather than overwrite that writer's item.
     */
    private CompletionStage<Written> send(List<MasterRequest> requests, byte[] stored) {
        masters.send(requests);
        CompletionStage<Reply> wrote = reply(requests.get(0));
        CompletionStage<Reply> readBack = reply(requests.get(1));
        String code = requests.get(0).line.substring(0, requests.get(0).line.indexOf(','));
        return wrote.thenCombine(readBack, (writeReply, readReply) -> {
            if (!(writeReply instanceof Reply.Line line)) {
                return new Written(Outcome.FAILED, writeReply.failure(), 0);
            }
            String[] fields = line.fields(code, 3);
            if (fields == null) {
                return new Written(Outcome.FAILED, writeReply.failure(), 0);
            }
            if (fields[1].equals("false") && (fields[2].startsWith("NG:Data has already been registered")
                    || fields[2].startsWith("NG:Data has already been updated"))) {
                return new Written(Outcome.REFUSED, null, 0);
            }
            if (!fields[1].equals("true")) {
                return new Written(Outcome.FAILED, writeReply.failure(), 0);
            }
            long cas = OkuyamaVersions.NONE;
            if (readReply instanceof Reply.Line read) {
                String[] got = read.fields("15", 4);
                if (got != null && got.length == 4 && got[1].equals("true")
                        && Arrays.equals(value(got[2]), stored)) {
                    cas = OkuyamaVersions.cas(got[3]);
                }
            }
            return new Written(Outcome.WRITTEN, null, cas);
        });
    }

    private CompletionStage<Reply> request(String line, boolean idempotent) {
        MasterRequest request = new MasterRequest(line, idempotent);
        masters.send(List.of(request));
        return reply(request);
    }

    private static CompletionStage<Reply> reply(MasterRequest request) {
        return request.reply.handle((line, error) -> line != null ? new Reply.Line(line)
                : new Reply.Unanswered(error instanceof MasterUnavailable unavailable ? unavailable.getMessage()
                        : String.valueOf(error)));
    }

    /** A master's reply line to one request, or why there is none. */
    private sealed interface Reply {
        /** The failure this reply stands for, when it is not the success the caller looked for. */
        Result failure();

        record Line(String line) implements Reply {
            /** The reply's fields (at most {@code limit}, the last holding the rest), or null if it is not to code. */
            String[] fields(String code, int limit) {
                String[] fields = line.split(",", limit);
                if (!fields[0].equals(code) || fields.length < 2) {
                    return null;
                }
                if (fields.length == 2) {
                    return new String[] {fields[0], fields[1], ""};
                }
                return fields;
            }

            @Override
            public Result failure() {
                String[] fields = line.split(",", 3);
                String message = fields.length == 3 ? fields[2] : "";
                if (fields.length >= 2 && fields[1].equals("false")) {
                    if (message.startsWith("Key Length Error")) {
                        return Result.failure(Status.INVALID, "the key is too long for okuyama");
                    }
                    if (message.startsWith("Value Length Error") || message.contains("Max Data Size Over")) {
                        return Result.failure(Status.TOO_LARGE, "the value is too large for okuyama");
                    }
                }
                return Result.failure(Status.BACKEND_ERROR, "okuyama answered: " + line);
            }
        }

        record Unanswered(String why) implements Reply {
            @Override
            public Result failure() {
                return Result.failure(Status.TEMPORARY_FAILURE, why);
            }
        }
    }

    private static byte[] value(String field) {
        if (field.equals(BLANK) || field.isEmpty()) {
            return new byte[0];
        }
        try {
            return Base64.getDecoder().decode(field);
        } catch (IllegalArgumentException e) {
            return field.getBytes(StandardCharsets.UTF_8);
        }
    }

    /**
     * An exhaustive scan reads every DataNode's export (okuyama's MasterNodes cannot list keys), keeps the namespace's
     * live items, each key once (a key may sit on two nodes while okuyama moves data). Another scan is left to the
     * gateway's key directory.
     */
    private CompletionStage<Result> scan(Operation.Scan scan) {
        if (!scan.exhaustive()) {
            return done(Result.failure(Status.UNSUPPORTED,
                    "okuyama lists its items only for an exhaustive scan, from its DataNodes"));
        }
        if (dataNodes.isEmpty()) {
            return done(Result.failure(Status.UNSUPPORTED,
                    "okuyama.datanodes names no DataNode to list the items of"));
        }
        return lister.run(() -> {
            Map<ByteBuffer, Item> found = new LinkedHashMap<>();
            boolean own = scan.namespace().equals(keys.own());
            long now = clock.millis();
            for (List<NodeAddress> replicas : dataNodes) {
                String failure = null;
                for (NodeAddress node : replicas) {
                    try {
                        DataNodeExport.export(node, timeoutMillis, Math.max(timeoutMillis, 60_000), now, record -> {
                            byte[] key = keys.listed(scan.namespace(), record.key());
                            if (key != null) {
                                found.putIfAbsent(ByteBuffer.wrap(key), listedItem(own, record.item()));
                                if (found.size() > scan.limit()) {
                                    throw new TooMany();
                                }
                            }
                        });
                        failure = null;
                        break;
                    } catch (TooMany e) {
                        return Result.failure(Status.TOO_LARGE, "the namespace holds more than " + scan.limit()
                                + " items");
                    } catch (IOException e) {
                        // A replica holds the same keys: it is read in this one's place (what this one gave stays).
                        failure = (failure == null ? "" : failure + "; ") + "okuyama DataNode " + node + ": "
                                + e.getMessage();
                    }
                }
                if (failure != null) {
                    return Result.failure(Status.TEMPORARY_FAILURE, "listing " + failure);
                }
            }
            List<Result.Entry> entries = new ArrayList<>(found.size());
            for (var entry : found.entrySet()) {
                entries.add(new Result.Entry(entry.getKey().array(), entry.getValue()));
            }
            return new Result.Entries(entries);
        });
    }

    /** An item as an export lists it: its value decoded, the expiry okuyama keeps where the value has none. */
    private static Item listedItem(boolean own, Item listed) {
        Item item = StoredValues.decode(own, listed.value(), listed.cas());
        return item.expiresAt() != Item.NEVER || listed.expiresAt() == Item.NEVER ? item
                : new Item(item.value(), item.flags(), item.cas(), listed.expiresAt());
    }

    /**
     * Empties a namespace: lists it from the DataNodes and deletes each key it holds. okuyama has no flush of a
     * keyspace of its own (its truncate, from the main MasterNode, empties a whole cluster or tenant), and the
     * gateway must not empty more than the namespace.
     */
    private CompletionStage<Result> flush(Operation.Flush flush) {
        return scan(new Operation.Scan(flush.namespace(), Integer.MAX_VALUE, true)).thenCompose(listed -> {
            if (!(listed instanceof Result.Entries entries)) {
                return done(listed.status() == Status.UNSUPPORTED ? Result.failure(Status.UNSUPPORTED,
                        "okuyama empties a namespace only by listing it: " + ((Result.Failure) listed).message())
                        : listed);
            }
            // Each delete's answer is kept as DONE or its failure, not with the value it removed. The first failure
            // ends the flush, and is its answer: the last one kept.
            return inWaves(entries.entries(), entry -> execute(new Operation.Delete(flush.namespace(), entry.key(), 0))
                    .thenApply(deleted -> failedDelete(deleted) ? deleted : Result.DONE),
                    OkuyamaBackend::failedDelete)
                    .thenApply(deleted -> deleted.isEmpty() ? Result.DONE : deleted.get(deleted.size() - 1));
        });
    }

    private static boolean failedDelete(Result delete) {
        return !delete.ok() && delete.status() != Status.NOT_FOUND;
    }

    /**
     * Runs {@code step} on each item, a wave of {@link #WAVE} at a time, so that a long list (a flush's keys, a
     * search's hits) does not queue all its requests on the MasterNode connections at once. The results come in the
     * items' order; the first result {@code ends} accepts is the last.
     */
    private static <T, R> CompletionStage<List<R>> inWaves(List<T> items, Function<T, CompletionStage<R>> step,
            Predicate<R> ends) {
        return wave(items, 0, step, ends, new ArrayList<>(items.size()));
    }

    private static <T, R> CompletionStage<List<R>> wave(List<T> items, int next, Function<T, CompletionStage<R>> step,
            Predicate<R> ends, List<R> results) {
        if (next >= items.size()) {
            return CompletableFuture.completedFuture(results);
        }
        int end = Math.min(items.size(), next + WAVE);
        List<CompletableFuture<R>> wave = new ArrayList<>(end - next);
        for (T item : items.subList(next, end)) {
            wave.add(step.apply(item).toCompletableFuture());
        }
        return CompletableFuture.allOf(wave.toArray(CompletableFuture[]::new)).thenCompose(ignored -> {
            for (CompletableFuture<R> each : wave) {
                R result = each.join();
                results.add(result);
                if (ends.test(result)) {
                    return CompletableFuture.completedFuture(results);
                }
            }
            return wave(items, end, step, ends, results);
        });
    }

    /** Ends an export that found more items than the scan may answer. */
    private static final class TooMany extends RuntimeException {
        TooMany() {
            super(null, null, false, false);
        }
    }

    private static CompletionStage<Result> done(Result result) {
        return CompletableFuture.completedFuture(result);
    }

    @Override
    public void close() {
        masters.close();
        lister.close();
    }
}
