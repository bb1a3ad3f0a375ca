package kvgate.backend.redis;

import io.lettuce.core.Range;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import kvgate.spi.Backend;
import kvgate.spi.Capability;
import kvgate.spi.CircuitBreaker;
import kvgate.spi.Item;
import kvgate.spi.Namespace;
import kvgate.spi.Operation;
import kvgate.spi.Result;
import kvgate.spi.ResultFuture;
import kvgate.spi.Status;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Redis or Redis Cluster as a backend. A get is one GET; every other key operation is one script ({@link Script})
 * that reads the item, decides as {@link kvgate.spi.ItemTransition} does, and writes it and its namespace index
 * together, so CAS checks, add, replace, append and arithmetic are atomic however many gateways share the store.
 *
 * <p>Operations that arrive together go out on the calling event loop's own connection and are flushed once
 * ({@link RedisConnections}). A failure is a temporary failure when nothing was done, a backend error when a
 * change may have been made ({@link #failure}). A script a cluster refused for a migrating slot (an item's write, a
 * counter's operation) is first tried again, in its loop's order ({@link SlotMigrations}).
 */
final class RedisBackend implements Backend {
    private static final Logger LOG = LoggerFactory.getLogger(RedisBackend.class);
    private final RedisConnections connections;
    private final Clock clock;
    private final byte[] maxItemSize;

    /** Lettuce's message for a command rejected, unsent, while its connection is down (REJECT_COMMANDS). */
    private static final String NOT_CONNECTED = "Currently not connected. Commands are rejected.";

    /** Redis's error replies that refuse a command before running it: it changed nothing and may be retried. */
    private static final List<String> REFUSALS = List.of("OOM", "BUSY", "LOADING", "READONLY", "CLUSTERDOWN",
            "TRYAGAIN", "MASTERDOWN", "NOSCRIPT");

    /** The most members one flush script removes; a bigger shard is flushed in several calls. */
    private static final int FLUSH_CHUNK = 1000;

    /** How often the key count is read for the gateway's stats. */
    private static final long STATS_INTERVAL_MILLIS = 1000;

    private final ScheduledFuture<?> statsPoll;
    private final TagsAndSearch tagsAndSearch;
    private final RedisCounters counters;
    /** The namespaces this gateway has written items to: those whose items {@link #countItems} counts. */
    private final Set<Namespace> written = ConcurrentHashMap.newKeySet();
    private volatile long items;
    /** Whether a round of {@link #countItems} is under way. */
    private final AtomicBoolean counting = new AtomicBoolean();

    /**
     * Each node's breaker, by {@code host:port}: a node that stops answering fails its keys' requests at once, the
     * other nodes' keys go on being served. Made as requests first reach a node.
     */
    private final Map<String, CircuitBreaker> breakers = new ConcurrentHashMap<>();
    private final int failureLimit;
    private final long retryMillis;
    private final ScheduledExecutorService scheduler;
    /** Set once closing: no more probes. */
    private volatile boolean closed;

    /** Each event loop's writes refused for a migrating slot, by the loop's connection. */
    private final Map<RedisConnections.Channel, SlotMigrations> migrations = new IdentityHashMap<>();

    /**
     * @param migrationWaitMillis how long a script refused for a migrating slot is tried again (0: never)
     * @param failureLimit requests in a row a node leaves unanswered before its requests fail at once
     * @param retryMillis how often a node failing fast is probed
     */
    RedisBackend(RedisConnections connections, Clock clock, int maxItemSize, ScheduledExecutorService scheduler,
                 long counterLeaseMillis, long counterIntervalSeconds, long migrationWaitMillis, int failureLimit,
                 long retryMillis) {
        this.connections = connections;
        this.failureLimit = failureLimit;
        this.retryMillis = retryMillis;
        this.scheduler = scheduler;
        connections.loopChannels().forEach((loop, channel) -> migrations.put(channel,
                new SlotMigrations(loop, migrationWaitMillis, new SlotMigrations.Sender() {
                    @Override
                    public void send(Operation operation, ResultFuture outcome, long since) {
                        RedisBackend.this.send(channel, migrations.get(channel), operation, outcome, since);
                    }

                    @Override
                    public void flush() {
                        channel.flush();
                    }
                })));
        this.clock = clock;
        this.maxItemSize = KeyLayout.utf8(Integer.toString(maxItemSize));
        this.tagsAndSearch = new TagsAndSearch(this, connections);
        // Timers last: they run on other threads, and use the fields above.
        this.counters = new RedisCounters(this, connections, counterLeaseMillis, counterIntervalSeconds, scheduler);
        this.statsPoll = scheduler.scheduleWithFixedDelay(this::countItems, 0, STATS_INTERVAL_MILLIS,
                TimeUnit.MILLISECONDS);
    }

    @Override
    public Set<Capability> capabilities() {
        return EnumSet.of(Capability.SHARED, Capability.SCAN, Capability.TAGS, Capability.SEARCH, Capability.COUNTERS,
                Capability.KEEP_EXPIRY, Capability.LEASES, Capability.ARITHMETIC_EXPIRY, Capability.CHOSEN_CAS);
    }

    @Override
    public CompletionStage<Result> execute(Operation operation) {
        return executeAll(List.of(operation)).get(0);
    }

    @Override
    public List<CompletionStage<Result>> executeAll(List<Operation> operations) {
        RedisConnections.Channel channel = connections.current();
        SlotMigrations held = migrations.get(channel);
        List<CompletionStage<Result>> results = new ArrayList<>(operations.size());
        try {
            for (Operation operation : operations) {
                ResultFuture queued = held == null ? null : held.queueIfHeld(operation);
                if (queued != null) {
                    results.add(queued);
                    continue;
                }
                // A ResultFuture, which the gateway hands on as it is, where a stage that may fail gets a guard.
                ResultFuture outcome = new ResultFuture();
                send(channel, held, operation, outcome, System.nanoTime());
                results.add(outcome);
            }
        } finally {
            channel.flush();
        }
        return results;
    }

    /**
     * Starts an operation's commands on {@code channel}, without flushing; its result or failure completes
     * {@code outcome}. On an event loop's own connection, a script refused for a migrating slot goes to the loop's
     * {@link SlotMigrations} instead, to be tried again.
     *
     * @param held the channel's {@link SlotMigrations}; null for the shared connection
     * @param since when the operation was first sent, from which its retries are timed
     */
    private void send(RedisConnections.Channel channel, SlotMigrations held, Operation operation, ResultFuture outcome,
                      long since) {
        boolean reads = reads(operation);
        String node = operation instanceof Operation.KeyOperation keyed
                ? connections.nodeOf(KeyLayout.itemKey(keyed.namespace(), keyed.key())) : null;
        CircuitBreaker breaker = node == null ? null : breakers.computeIfAbsent(node, this::newBreaker);
        if (breaker != null && breaker.isOpen()) {
            outcome.complete(Result.failure(Status.TEMPORARY_FAILURE, "redis: " + node
                    + " is not answering; its requests fail at once until a probe is answered"));
            return;
        }
        long number = held == null ? 0 : held.started(operation);
        CompletionStage<Result> started;
        try {
            started = operation.accept(new Starter(channel));
        } catch (RuntimeException e) {
            started = CompletableFuture.completedFuture(failure(e, reads));
        }
        started.whenComplete((result, error) -> {
            if (breaker != null) {
                noteAnswer(node, breaker, error);
            }
            if (error == null) {
                outcome.complete(result);
            } else if (held != null && SlotMigrations.retriable(operation, unwrap(error))) {
                held.refused(operation, number, since, outcome, failure(error, reads));
            } else {
                outcome.complete(failure(error, reads));
            }
        });
    }

    private CircuitBreaker newBreaker(String node) {
        return new CircuitBreaker(failureLimit, retryMillis);
    }

    /**
     * Tells a node's breaker whether it answered: any reply, an error reply too, is an answer; a timeout, a lost or
     * refused connection, or a command rejected unsent while its connection is down is not.
     */
    private void noteAnswer(String node, CircuitBreaker breaker, Throwable error) {
        Throwable cause = error == null ? null : unwrap(error);
        if (!unanswered(cause)) {
            if (breaker.answered()) {
                LOG.info("redis {} answers again; its requests are sent again", node);
            }
        } else if (breaker.failed()) {
            LOG.warn("redis {} left {} requests in a row unanswered (last: {}); its requests fail at once, and it is "
                    + "probed every {} ms", node, failureLimit, cause.getMessage(), retryMillis);
            if (breaker.startProbing()) {
                scheduler.schedule(() -> probe(node, breaker), retryMillis, TimeUnit.MILLISECONDS);
            }
        }
    }

    private static boolean unanswered(Throwable cause) {
        return cause instanceof RedisCommandTimeoutException || cause instanceof RedisConnectionException
                || (cause != null && NOT_CONNECTED.equals(cause.getMessage()));
    }

    /**
     * While a node's breaker is open: a PING of the gateway's own, never a client's request, so that no client waits
     * on a node that does not answer. The next is sent only once this one has failed, so probes never pile up.
     */
    private void probe(String node, CircuitBreaker breaker) {
        if (closed || !breaker.isOpen()) {
            endProbing(node, breaker);
            return;
        }
        if (!connections.knows(node)) {
            breakers.remove(node, breaker); // failed over and gone from the topology: nothing left to probe
            return;
        }
        CompletionStage<?> ping;
        try {
            ping = connections.ping(node);
        } catch (RuntimeException e) {
            ping = CompletableFuture.failedFuture(e);
        }
        ping.whenComplete((pong, error) -> {
            Throwable cause = error == null ? null : unwrap(error);
            if (error == null || !unanswered(cause)) {
                if (breaker.answered()) {
                    LOG.info("redis {} answers again; its requests are sent again", node);
                }
                endProbing(node, breaker);
            } else if (!closed) {
                breaker.failed();
                scheduler.schedule(() -> probe(node, breaker), retryMillis, TimeUnit.MILLISECONDS);
            }
        });
    }

    /** Ends a node's probe cycle, or goes on with it when its breaker opened again meanwhile. */
    private void endProbing(String node, CircuitBreaker breaker) {
        if (breaker.probeEnded() && !closed) {
            scheduler.schedule(() -> probe(node, breaker), retryMillis, TimeUnit.MILLISECONDS);
        }
    }

    /** Starts one operation's commands on a connection, without flushing. */
    private final class Starter implements Operation.Visitor<CompletionStage<Result>> {
        private final RedisConnections.Channel channel;

        Starter(RedisConnections.Channel channel) {
            this.channel = channel;
        }

        @Override
        public CompletionStage<Result> get(Operation.Get get) {
            return channel.commands().get(KeyLayout.itemKey(get.namespace(), get.key())).thenApply(raw -> {
                if (raw == null) {
                    return Result.failure(Status.NOT_FOUND);
                }
                Item item = StoredItem.decode(raw);
                // The gateway's clock decides, as in the scripts; Redis's expiry only reclaims the memory.
                return item.isExpiredAt(clock.millis()) ? Result.failure(Status.NOT_FOUND) : new Result.Value(item);
            });
        }

        @Override
        public CompletionStage<Result> store(Operation.Store store) {
            return item(channel, Script.STORE, store, KeyLayout.utf8(mode(store)), store.value(),
                    KeyLayout.utf8(Integer.toUnsignedString(store.flags())),
                    StoredItem.expiryArgument(store.expiresAt()), StoredItem.casArgument(store.cas()), maxItemSize,
                    store.keepExpiry() ? KEEP_EXPIRY : GIVEN_EXPIRY,
                    KeyLayout.utf8(store.staleIfOlder() ? "stale" : ""),
                    StoredItem.casArgument(store.chosenCas()))
                    .thenApply(reply -> reply.ok() ? new Result.Stored(reply.cas(1, store)) : reply.failure());
        }

        @Override
        public CompletionStage<Result> delete(Operation.Delete delete) {
            return item(channel, Script.DELETE, delete, StoredItem.casArgument(delete.cas()))
                    .thenApply(reply -> reply.ok() ? new Result.Removed(StoredItem.decode(reply.bytes(1)))
                            : reply.failure());
        }

        @Override
        public CompletionStage<Result> arithmetic(Operation.Arithmetic arithmetic) {
            long delta = arithmetic.delta();
            return item(channel, Script.ARITHMETIC, arithmetic,
                    KeyLayout.utf8(arithmetic.increment() ? "incr" : "decr"),
                    KeyLayout.utf8(Long.toString(delta >>> 32)), KeyLayout.utf8(Long.toString(delta & 0xffffffffL)),
                    KeyLayout.utf8(Long.toUnsignedString(arithmetic.initial())),
                    KeyLayout.utf8(arithmetic.createIfMissing() ? "create" : ""),
                    StoredItem.expiryArgument(arithmetic.expiresAt()), StoredItem.casArgument(arithmetic.cas()),
                    arithmetic.touchExpiresAt() == null ? new byte[0]
                            : StoredItem.expiryArgument(arithmetic.touchExpiresAt()),
                    StoredItem.casArgument(arithmetic.chosenCas()))
                    .thenApply(reply -> reply.ok()
                            ? new Result.Number(Long.parseUnsignedLong(reply.text(1)), reply.cas(2, arithmetic),
                                    reply.number(3))
                            : reply.failure());
        }

        @Override
        public CompletionStage<Result> touch(Operation.Touch touch) {
            return item(channel, Script.TOUCH, touch, StoredItem.expiryArgument(touch.expiresAt()))
                    .thenApply(reply -> reply.ok() ? new Result.Value(StoredItem.decode(reply.bytes(1),
                            reply.number(2))) : reply.failure());
        }

        @Override
        public CompletionStage<Result> leaseGet(Operation.LeaseGet get) {
            return item(channel, Script.LEASE_GET, get, optionalExpiry(get.touchExpiresAt()),
                    optionalExpiry(get.vivifyExpiresAt()), KeyLayout.utf8(get.recacheWithinMillis() == null ? ""
                            : Long.toString(get.recacheWithinMillis())), StoredItem.casArgument(get.chosenCas()))
                    .thenApply(reply -> reply.ok() ? new Result.Leased(StoredItem.decode(reply.bytes(1),
                            reply.number(2)), reply.number(3) == 1) : reply.failure());
        }

        @Override
        public CompletionStage<Result> invalidate(Operation.Invalidate invalidate) {
            return item(channel, Script.INVALIDATE, invalidate, StoredItem.casArgument(invalidate.cas()),
                    optionalExpiry(invalidate.expiresAt()), StoredItem.casArgument(invalidate.chosenCas()))
                    .thenApply(reply -> reply.ok() ? new Result.Stored(reply.cas(1, invalidate)) : reply.failure());
        }

        @Override
        public CompletionStage<Result> flush(Operation.Flush flush) {
            byte[] chunk = KeyLayout.utf8(Integer.toString(FLUSH_CHUNK));
            List<CompletableFuture<Void>> shards = new ArrayList<>(KeyLayout.SHARDS);
            for (int shard = 0; shard < KeyLayout.SHARDS; shard++) {
                shards.add(flushShard(channel, flush.namespace(), shard, chunk).toCompletableFuture());
            }
            return CompletableFuture.allOf(shards.toArray(CompletableFuture[]::new)).thenApply(done -> Result.DONE);
        }

        @Override
        public CompletionStage<Result> tag(Operation.Tag tag) {
            return tagsAndSearch.tag(channel, tag);
        }

        @Override
        public CompletionStage<Result> untag(Operation.Untag untag) {
            return tagsAndSearch.untag(channel, untag);
        }

        @Override
        public CompletionStage<Result> dropTags(Operation.DropTags dropTags) {
            return tagsAndSearch.dropTags(dropTags);
        }

        @Override
        public CompletionStage<Result> taggedKeys(Operation.TaggedKeys taggedKeys) {
            return tagsAndSearch.taggedKeys(channel, taggedKeys);
        }

        @Override
        public CompletionStage<Result> index(Operation.Index index) {
            return tagsAndSearch.index(channel, index);
        }

        @Override
        public CompletionStage<Result> unindex(Operation.Unindex unindex) {
            return tagsAndSearch.unindex(channel, unindex);
        }

        @Override
        public CompletionStage<Result> search(Operation.Search search) {
            return tagsAndSearch.search(channel, search);
        }

        @Override
        public CompletionStage<Result> acquire(Operation.Acquire acquire) {
            return counters.acquire(channel, acquire);
        }

        @Override
        public CompletionStage<Result> release(Operation.Release release) {
            return counters.release(channel, release);
        }

        @Override
        public CompletionStage<Result> releaseAll(Operation.ReleaseAll releaseAll) {
            return counters.releaseAll(channel, releaseAll);
        }

        @Override
        public CompletionStage<Result> readCounter(Operation.ReadCounter read) {
            return counters.read(channel, read);
        }

        @Override
        public CompletionStage<Result> dumpCounters(Operation.DumpCounters dump) {
            return counters.dump(channel, dump);
        }

        @Override
        public CompletionStage<Result> scan(Operation.Scan scan) {
            long now = clock.millis();
            byte[] wanted = KeyLayout.utf8(Integer.toString(scan.limit() + 1));
            List<CompletableFuture<List<Object>>> shards = new ArrayList<>(KeyLayout.SHARDS);
            for (int shard = 0; shard < KeyLayout.SHARDS; shard++) {
                shards.add(RedisBackend.this.<List<Object>>run(channel, Script.SCAN, ScriptOutputType.MULTI,
                        keys(KeyLayout.indexShard(scan.namespace(), shard)),
                        KeyLayout.itemPrefix(scan.namespace(), shard), KeyLayout.utf8(Long.toString(now)), wanted)
                        .toCompletableFuture());
            }
            return CompletableFuture.allOf(shards.toArray(CompletableFuture[]::new)).thenApply(done -> {
                List<Result.Entry> entries = new ArrayList<>();
                for (CompletableFuture<List<Object>> shard : shards) {
                    List<Object> found = shard.join();
                    for (int i = 0; i < found.size(); i += 2) {
                        Item item = StoredItem.decode((byte[]) found.get(i + 1));
                        if (!item.isExpiredAt(now)) {
                            if (entries.size() == scan.limit()) {
                                return Result.failure(Status.TOO_LARGE,
                                        "the namespace holds more than " + scan.limit() + " items");
                            }
                            entries.add(new Result.Entry((byte[]) found.get(i), item));
                        }
                    }
                }
                return new Result.Entries(entries);
            });
        }
    }

    /**
     * Flushes one index shard a chunk at a time, so that no script runs long on a big shard: the first chunk goes
     * out with the batch, the next ones on the shared connection as each reply says more are left.
     */
    private CompletionStage<Void> flushShard(RedisConnections.Channel channel, Namespace namespace, int shard,
                                             byte[] chunk) {
        return this.<Long>run(channel, Script.FLUSH, ScriptOutputType.INTEGER, keys(KeyLayout.indexShard(namespace,
                        shard)), KeyLayout.itemPrefix(namespace, shard), chunk, KeyLayout.leasePrefix(namespace, shard))
                .thenCompose(left -> left == 0 ? CompletableFuture.completedFuture(null)
                        : flushShard(connections.shared(), namespace, shard, chunk));
    }

    /**
     * Runs an item script: KEYS are the item, its index shard, its shard's CAS mark and its lease, ARGV the client's
     * key, the gateway's time (by which the script judges expiry, as {@link Starter#get} does) then {@code args}.
     */
    private CompletionStage<ScriptReply> item(RedisConnections.Channel channel, Script script,
                                             Operation.KeyOperation operation, byte[]... args) {
        Namespace namespace = operation.namespace();
        if (!written.contains(namespace)) {
            written.add(namespace);
        }
        byte[] key = operation.key();
        byte[][] argv = new byte[args.length + 2][];
        argv[0] = key;
        argv[1] = KeyLayout.utf8(Long.toString(clock.millis()));
        System.arraycopy(args, 0, argv, 2, args.length);
        return this.<List<Object>>run(channel, script, ScriptOutputType.MULTI,
                KeyLayout.ofItem(namespace, key), argv)
                .thenApply(ScriptReply::new);
    }

    /** An expiry the scripts take or not: empty for none. */
    private static byte[] optionalExpiry(Long expiresAt) {
        return expiresAt == null ? new byte[0] : StoredItem.expiryArgument(expiresAt);
    }

    /**
     * Runs a script by its SHA-1. A node that does not know it (restarted, or a replica promoted since the scripts
     * were loaded) refuses it with NOSCRIPT: the script did not run, so the operation fails as a temporary failure
     * and the scripts are loaded again in the background. Sending the text instead would keep this client's order
     * only if it went out before the commands pipelined behind this one, which have already gone.
     */
    <T> CompletionStage<T> run(RedisConnections.Channel channel, Script script, ScriptOutputType type, byte[][] keys,
                               byte[]... args) {
        return channel.commands().<T>evalsha(script.sha(), type, keys, args).whenComplete((reply, error) -> {
            if (error != null && unwrap(error) instanceof RedisNoScriptException) {
                connections.reloadScripts();
            }
        });
    }

    /** The store script's last argument: keep the expiry of an item already there, or give it the store's. */
    private static final byte[] KEEP_EXPIRY = KeyLayout.utf8("keep");
    private static final byte[] GIVEN_EXPIRY = KeyLayout.utf8("");

    private static String mode(Operation.Store store) {
        return switch (store.mode()) {
            case SET -> "set";
            case ADD -> "add";
            case REPLACE -> "replace";
            case APPEND -> "append";
            case PREPEND -> "prepend";
        };
    }

    static byte[][] keys(byte[]... keys) {
        return keys;
    }

    /** A script's reply: a status word first, then what the status brings. */
    record ScriptReply(List<Object> values) {
        boolean ok() {
            return text(0).equals("OK");
        }

        /** The failure the status word names ({@link Status}'s own names). */
        Result failure() {
            return Result.failure(Status.valueOf(text(0)));
        }

        String text(int index) {
            return new String(bytes(index), StandardCharsets.US_ASCII);
        }

        byte[] bytes(int index) {
            return (byte[]) values.get(index);
        }

        long number(int index) {
            return (Long) values.get(index);
        }

        /**
         * The CAS a write gave its item: the one {@code operation} chose, which the script answers as its 8 bytes,
         * or the script's own at {@code index}.
         */
        long cas(int index, Operation.KeyOperation operation) {
            return operation.chosenCas() != 0 ? operation.chosenCas() : number(index);
        }
    }

    /** Whether an operation only reads: one that failed may simply be tried again, whatever became of it. */
    private static boolean reads(Operation operation) {
        return Operation.readsItem(operation) || operation instanceof Operation.Scan
                || operation instanceof Operation.TaggedKeys || operation instanceof Operation.Search
                || operation instanceof Operation.ReadCounter || operation instanceof Operation.DumpCounters;
    }

    /**
     * What a client is told when a command did not complete. {@link Status#TEMPORARY_FAILURE} when nothing was
     * done: the command was rejected before it was sent (no connection), or Redis refused it for now ({@link
     * #REFUSALS}), or the operation only reads. {@link Status#BACKEND_ERROR} when a change may or may not have been
     * made (a timeout or a lost connection after the command was sent, a script that failed halfway), so that no
     * client retries an incr or an acquisition as if it had not happened; also for a reply this code cannot read.
     */
    static Result failure(Throwable error, boolean reads) {
        Throwable cause = unwrap(error);
        String message = "redis: " + cause.getMessage();
        if (!(cause instanceof RedisException)) {
            return Result.failure(Status.BACKEND_ERROR, message); // not Redis's failure but this code's reading
        }
        boolean nothingDone = reads || cause instanceof RedisConnectionException
                || NOT_CONNECTED.equals(cause.getMessage())
                || (cause instanceof RedisCommandExecutionException && refusal(cause.getMessage()));
        return Result.failure(nothingDone ? Status.TEMPORARY_FAILURE : Status.BACKEND_ERROR, message);
    }

    private static boolean refusal(String message) {
        if (message == null) {
            return false;
        }
        for (String code : REFUSALS) {
            if (errorCode(message, code)) {
                return true;
            }
        }
        return false;
    }

    /** Whether Redis's error reply {@code message} (not null) is of {@code code}: the code, alone or then a space. */
    static boolean errorCode(String message, String code) {
        return message.startsWith(code) && (message.length() == code.length() || message.charAt(code.length()) == ' ');
    }

    private static Throwable unwrap(Throwable error) {
        Throwable cause = error;
        while ((cause instanceof CompletionException || cause instanceof ExecutionException)
                && cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause;
    }

    /**
     * Counts the live items of the namespaces this gateway has written to, from their index shards (Redis's key
     * count would include the index, tag, search and counter keys).
     */
    private void countItems() {
        if (!counting.compareAndSet(false, true)) {
            return; // the last round's answers are still coming: a slow Redis gets no second round on top
        }
        Range<Long> live = Range.from(Range.Boundary.excluding(clock.millis()), Range.Boundary.unbounded());
        List<CompletableFuture<Long>> counts = new ArrayList<>();
        for (Namespace namespace : written) {
            for (int shard = 0; shard < KeyLayout.SHARDS; shard++) {
                counts.add(connections.shared().commands().zcount(KeyLayout.indexShard(namespace, shard),
                        live).toCompletableFuture());
            }
        }
        CompletableFuture.allOf(counts.toArray(CompletableFuture[]::new)).whenComplete((done, error) -> {
            if (error == null) {
                long total = 0;
                for (CompletableFuture<Long> count : counts) {
                    total += count.join();
                }
                items = total;
            }
            counting.set(false);
        });
    }

    @Override
    public Map<String, String> stats() {
        Map<String, String> stats = new LinkedHashMap<>(counters.stats());
        stats.put("curr_items", Long.toString(items));
        stats.put("nodes_failing_fast", Long.toString(breakers.values().stream().filter(CircuitBreaker::isOpen)
                .count()));
        stats.put("node_breaker_trips", Long.toString(breakers.values().stream().mapToLong(CircuitBreaker::trips)
                .sum()));
        return stats;
    }

    @Override
    public void close() {
        closed = true;
        statsPoll.cancel(false);
        counters.close();
        connections.close();
    }
}
