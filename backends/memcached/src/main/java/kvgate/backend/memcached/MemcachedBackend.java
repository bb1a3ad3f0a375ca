package kvgate.backend.memcached;

import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.util.concurrent.EventExecutor;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import kvgate.spi.Backend;
import kvgate.spi.BlockingWork;
import kvgate.spi.Capability;
import kvgate.spi.Item;
import kvgate.spi.Namespace;
import kvgate.spi.Operation;
import kvgate.spi.Result;
import kvgate.spi.ResultFuture;
import kvgate.spi.ServerHealth;
import kvgate.spi.Status;

/**
 * A pool of memcached servers as a backend. Each key goes to one server by {@link Ketama}; each server has one
 * pipelined {@link ServerConnection} per event loop of the gateway, and an operation takes the connection of the
 * loop it is called on, so it never changes threads (the connection of the first loop serves callers that are not
 * on a loop, keeping their order). The operations memcached has natively map to its binary opcodes; a batch of
 * gets for one server goes out as quiet gets closed by a noop.
 *
 * <p>A server that is down, ejected or too slow makes its operations {@link Status#TEMPORARY_FAILURE} quickly;
 * keys are not moved to other servers (a miss there would look like a real miss and hide the outage).
 */
final class MemcachedBackend implements Backend {
    /** Expiry meaning "do not create" in incr/decr requests. */
    private static final int NO_CREATE = 0xffffffff;
    /** memcached reads expiries up to 30 days as relative seconds, larger ones as Unix times. */
    private static final long RELATIVE_LIMIT_SECONDS = 60L * 60 * 24 * 30;
    /** An absolute time long past (just over the relative limit): memcached treats the item as expired. */
    private static final int EXPIRED = (int) RELATIVE_LIMIT_SECONDS + 1;

    /** How often the servers' item counts are read for the gateway's stats. */
    private static final long STATS_INTERVAL_MILLIS = 1000;

    private final List<Server> servers;
    private final List<ServerAddress> addresses;
    private final EventLoop[] loops;
    /** Where the servers' item listings are read: blocking reads, never on a network thread. */
    private final BlockingWork lister = new BlockingWork("kvgate-memcached-listing");
    private final int timeoutMillis;
    private final Ketama ketama;
    private final Clock clock;
    private final ScheduledFuture<?> statsPoll;
    private volatile long items;

    /**
     * @param credentials who the connections authenticate as; null when the servers do not ask
     * @param tls TLS to the servers; null for plain connections
     */
    MemcachedBackend(List<ServerAddress> addresses, EventLoopGroup eventLoops, Clock clock, long timeoutMillis,
                     int failureLimit, long retryMillis, int maxItemSize, ServerCredentials credentials,
                     ServerTls tls) {
        this.clock = clock;
        this.addresses = List.copyOf(addresses);
        this.timeoutMillis = (int) Math.min(Integer.MAX_VALUE, timeoutMillis);
        this.ketama = new Ketama(addresses);
        List<EventLoop> loopList = new ArrayList<>();
        for (EventExecutor executor : eventLoops) {
            loopList.add((EventLoop) executor);
        }
        this.loops = loopList.toArray(EventLoop[]::new);
        List<Server> pool = new ArrayList<>(addresses.size());
        for (ServerAddress address : addresses) {
            ServerHealth health = new ServerHealth("memcached server " + address, failureLimit, retryMillis);
            ServerConnection[] connections = new ServerConnection[loops.length];
            for (int i = 0; i < loops.length; i++) {
                connections[i] = new ServerConnection(address, health, loops[i], timeoutMillis,
                        maxItemSize + 64 * 1024, credentials, tls);
            }
            pool.add(new Server(health, connections));
        }
        this.servers = List.copyOf(pool);
        this.statsPoll = eventLoops.next().scheduleWithFixedDelay(this::readItemCounts, 0, STATS_INTERVAL_MILLIS,
                TimeUnit.MILLISECONDS);
    }

    /** One server of the pool: its health, and its connection on each event loop (indexed as {@link #loops}). */
    private record Server(ServerHealth health, ServerConnection[] connections) {
    }

    /** The index of the event loop running the caller, or 0 for a thread that is not one of them. */
    private int loopIndex() {
        for (int i = 0; i < loops.length; i++) {
            if (loops[i].inEventLoop()) {
                return i;
            }
        }
        return 0;
    }

    /** Sums the servers' {@code curr_items}; a server that does not answer leaves the last sum in place. */
    private void readItemCounts() {
        List<CompletableFuture<Long>> counts = new ArrayList<>();
        int loop = loopIndex();
        for (Server pooled : servers) {
            ServerConnection server = pooled.connections()[loop];
            ServerRequest.ReplyFuture done = new ServerRequest.ReplyFuture();
            ServerRequest stat = new ServerRequest(ServerRequest.STAT, null, null, null, 0, done);
            counts.add(done.thenApply(last -> {
                for (ServerReply part : stat.parts) {
                    if (new String(part.key(), StandardCharsets.US_ASCII).equals("curr_items")) {
                        return Long.parseLong(new String(part.value(), StandardCharsets.US_ASCII));
                    }
                }
                return 0L;
            }));
            server.send(List.of(stat));
        }
        CompletableFuture.allOf(counts.toArray(CompletableFuture[]::new)).thenRun(() ->
                items = counts.stream().mapToLong(CompletableFuture::join).sum());
    }

    @Override
    public Set<Capability> capabilities() {
        return EnumSet.of(Capability.SHARED);
    }

    @Override
    public CompletionStage<Result> execute(Operation operation) {
        return executeAll(List.of(operation)).get(0);
    }

    /** Groups the batch by server and sends each group at once: one write and one flush per server. */
    @Override
    public List<CompletionStage<Result>> executeAll(List<Operation> operations) {
        Map<ServerConnection, List<ServerRequest>> batches = new LinkedHashMap<>();
        List<CompletionStage<Result>> results = new ArrayList<>(operations.size());
        Translator translator = new Translator(batches, loopIndex(), operations.size());
        for (Operation operation : operations) {
            results.add(operation.accept(translator));
        }
        for (var batch : batches.entrySet()) {
            List<ServerRequest> requests = batch.getValue();
            fence(requests);
            batch.getKey().send(requests);
        }
        return results;
    }

    /**
     * Ends a batch with a request that is answered whatever happens, so that the replies tell the misses of the
     * quiet gets in it (each quiet get before an answered request and without a reply of its own missed): the last
     * request when it is not quiet, or the last get made to answer its miss too. Not a noop after it, which would
     * be one more request for memcached to read, count against its per-event limit and answer, per batch.
     */
    static void fence(List<ServerRequest> requests) {
        requests.get(requests.size() - 1).answerMisses();
    }

    /** Turns one operation into requests added to the batch, and their replies into its result. */
    private final class Translator implements Operation.Visitor<CompletionStage<Result>> {
        private final Map<ServerConnection, List<ServerRequest>> batches;
        /** The caller's event loop: requests go out through each server's connection on it. */
        private final int loop;
        /** The operations in the batch: room enough in any server's list, which then never grows. */
        private final int size;

        Translator(Map<ServerConnection, List<ServerRequest>> batches, int loop, int size) {
            this.batches = batches;
            this.loop = loop;
            this.size = size;
        }

        private void add(ServerConnection server, ServerRequest request) {
            batches.computeIfAbsent(server, ignored -> new ArrayList<>(size)).add(request);
        }

        /** Adds the request for a key to its server's batch; the result is made from the reply by {@code success}. */
        private CompletionStage<Result> add(Namespace namespace, byte[] key, int opcode, byte[] extras, byte[] value,
                                            long cas, Success success) {
            byte[] serverKey = ServerKeys.of(namespace, key);
            Outcome outcome = new Outcome(success, ServerRequest.mutating(opcode));
            add(servers.get(ketama.serverFor(serverKey)).connections()[loop],
                    new ServerRequest(opcode, extras, serverKey, value, cas, outcome));
            return outcome;
        }

        @Override
        public CompletionStage<Result> get(Operation.Get get) {
            // Quiet: only hits are answered, and the batch's last request tells the misses (see fence).
            return add(get.namespace(), get.key(), ServerRequest.GETQ, null, null, 0,
                    reply -> reply == null ? Result.failure(Status.NOT_FOUND)
                            : new Result.Value(item(reply, Item.NEVER)));
        }

        @Override
        public CompletionStage<Result> store(Operation.Store store) {
            int opcode = switch (store.mode()) {
                case SET -> ServerRequest.SET;
                case ADD -> ServerRequest.ADD;
                case REPLACE -> ServerRequest.REPLACE;
                case APPEND -> ServerRequest.APPEND;
                case PREPEND -> ServerRequest.PREPEND;
            };
            boolean concatenation = opcode == ServerRequest.APPEND || opcode == ServerRequest.PREPEND;
            byte[] extras = concatenation ? null : ByteBuffer.allocate(8).putInt(store.flags())
                    .putInt(expiry(store.expiresAt())).array();
            return add(store.namespace(), store.key(), opcode, extras, store.value(), store.cas(),
                    reply -> new Result.Stored(reply.cas()));
        }

        @Override
        public CompletionStage<Result> delete(Operation.Delete delete) {
            // memcached does not return what it removed; callers that need it read first (with CAS).
            return add(delete.namespace(), delete.key(), ServerRequest.DELETE, null, null, delete.cas(),
                    reply -> new Result.Removed(null));
        }

        @Override
        public CompletionStage<Result> arithmetic(Operation.Arithmetic arithmetic) {
            byte[] extras = ByteBuffer.allocate(20).putLong(arithmetic.delta()).putLong(arithmetic.initial())
                    .putInt(arithmetic.createIfMissing() ? expiry(arithmetic.expiresAt()) : NO_CREATE).array();
            return add(arithmetic.namespace(), arithmetic.key(), arithmetic.increment()
                            ? ServerRequest.INCREMENT : ServerRequest.DECREMENT, extras, null, arithmetic.cas(),
                    reply -> new Result.Number(ByteBuffer.wrap(reply.value()).getLong(), reply.cas()));
        }

        @Override
        public CompletionStage<Result> touch(Operation.Touch touch) {
            byte[] extras = ByteBuffer.allocate(4).putInt(expiry(touch.expiresAt())).array();
            return add(touch.namespace(), touch.key(), ServerRequest.GAT, extras, null, 0,
                    reply -> new Result.Value(item(reply, touch.expiresAt())));
        }

        /**
         * An exhaustive scan lists what the servers hold ({@link #listAll}); another is the key directory's, which
         * answers a protocol's scans without a crawl of every server each time.
         */
        @Override
        public CompletionStage<Result> scan(Operation.Scan scan) {
            if (!scan.exhaustive()) {
                return CompletableFuture.completedFuture(Result.failure(Status.UNSUPPORTED,
                        "memcached lists its items only for an exhaustive scan"));
            }
            return listAll(scan);
        }

        @Override
        public CompletionStage<Result> flush(Operation.Flush flush) {
            if (!flush.namespace().equals(Namespace.DEFAULT)) {
                return CompletableFuture.completedFuture(Result.failure(Status.UNSUPPORTED,
                        "memcached cannot flush one namespace (" + flush.namespace() + ") without the others"));
            }
            List<Outcome> flushed = new ArrayList<>();
            List<CompletableFuture<Result>> all = new ArrayList<>();
            for (Server server : servers) {
                Outcome outcome = new Outcome(reply -> Result.DONE, ServerRequest.mutating(ServerRequest.FLUSH));
                add(server.connections()[loop], new ServerRequest(ServerRequest.FLUSH, null, null, null, 0, outcome));
                flushed.add(outcome);
                all.add(outcome.toCompletableFuture());
            }
            return CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).thenApply(ignored -> {
                for (Outcome one : flushed) {
                    if (!one.join().ok()) {
                        return one.join();
                    }
                }
                return Result.DONE;
            });
        }
    }

    /** How many gets of listed keys go out together while a listing reads their items. */
    private static final int LISTING_BATCH = 256;

    /**
     * Every live item of a namespace that the servers hold, whoever stored it: each server's own listing of its items
     * ({@link ServerListing}, one server after another), the namespace's keys picked out ({@link ServerKeys#parse}),
     * then their items read as a get reads them, with the expiry the listing gave (memcached's gets do not tell it).
     * A server that refuses to list makes the whole scan {@link Status#UNSUPPORTED}, and so does a key of the
     * namespace too long to be listed by name: the caller then has the gateway's key directory answer. A server that
     * cannot be reached is a temporary failure.
     */
    private CompletionStage<Result> listAll(Operation.Scan scan) {
        return lister.run(() -> listNow(scan));
    }

    private Result listNow(Operation.Scan scan) throws InterruptedException {
        long nowSeconds = clock.millis() / 1000;
        Map<ByteBuffer, Long> found = new LinkedHashMap<>();
        int unnamed = 0;
        for (ServerAddress address : addresses) {
            List<ServerListing.Listed> listed;
            try {
                listed = ServerListing.list(address, Math.max(timeoutMillis, 10_000));
            } catch (ServerListing.Refused refused) {
                return Result.failure(Status.UNSUPPORTED, "memcached server " + address
                        + " does not list its items (lru_crawler metadump): " + refused.getMessage());
            } catch (IOException e) {
                return Result.failure(Status.TEMPORARY_FAILURE, "listing the items of memcached server " + address
                        + ": " + e.getMessage());
            }
            for (ServerListing.Listed item : listed) {
                if (item.expiresAtSeconds() != ServerListing.Listed.NEVER && item.expiresAtSeconds() <= nowSeconds) {
                    continue;
                }
                ServerKeys.Parsed parsed = ServerKeys.parse(item.serverKey());
                if (!parsed.namespace().equals(scan.namespace())) {
                    continue;
                }
                if (parsed.key() == null) {
                    unnamed++;
                    continue;
                }
                found.putIfAbsent(ByteBuffer.wrap(parsed.key()), item.expiresAtSeconds());
                if (found.size() > scan.limit()) {
                    return Result.failure(Status.TOO_LARGE, "the namespace holds more than " + scan.limit()
                            + " items");
                }
            }
        }
        if (unnamed > 0) {
            return Result.failure(Status.UNSUPPORTED, unnamed + " keys of namespace " + scan.namespace().name()
                    + " are too long for memcached and were stored hashed: they cannot be listed by name");
        }
        List<Result.Entry> entries = new ArrayList<>(found.size());
        List<Map.Entry<ByteBuffer, Long>> keys = new ArrayList<>(found.entrySet());
        for (int start = 0; start < keys.size(); start += LISTING_BATCH) {
            List<Map.Entry<ByteBuffer, Long>> batch = keys.subList(start, Math.min(keys.size(), start + LISTING_BATCH));
            List<Operation> gets = new ArrayList<>(batch.size());
            for (Map.Entry<ByteBuffer, Long> key : batch) {
                gets.add(new Operation.Get(scan.namespace(), key.getKey().array()));
            }
            List<CompletionStage<Result>> read = executeAll(gets);
            for (int i = 0; i < batch.size(); i++) {
                Result result = read.get(i).toCompletableFuture().join();
                if (result instanceof Result.Value value) {
                    long seconds = batch.get(i).getValue();
                    Item item = value.item();
                    entries.add(new Result.Entry(batch.get(i).getKey().array(), new Item(item.value(), item.flags(),
                            item.cas(), seconds == ServerListing.Listed.NEVER ? Item.NEVER : seconds * 1000)));
                } else if (result.status() != Status.NOT_FOUND) {
                    return result; // gone meanwhile is fine; a server that fails is the scan's failure
                }
            }
        }
        return new Result.Entries(entries);
    }

    private interface Success {
        Result of(ServerReply reply);
    }

    /**
     * The result of one request, made from its reply on the connection's loop: {@code success} for a success (or a
     * quiet pass), else the status mapped. A write whose reply was lost may have been carried out: that is a backend
     * error (outcome unknown), not a temporary failure, which tells a client that retrying is safe. A
     * {@link ResultFuture}, so that the gateway hands it on without a guard of its own: it only ever completes with
     * a result.
     */
    private static final class Outcome extends ResultFuture implements ServerRequest.Answer {
        private final Success success;
        private final boolean mutating;

        Outcome(Success success, boolean mutating) {
            this.success = success;
            this.mutating = mutating;
        }

        @Override
        public void replied(ServerReply reply) {
            try {
                complete(reply == null || reply.status() == ServerReply.SUCCESS ? success.of(reply)
                        : Result.failure(status(reply.status()), new String(reply.value(), StandardCharsets.US_ASCII)));
            } catch (RuntimeException e) {
                // A reply that does not read (an incr's value shorter than 8 bytes): this request's error, not the
                // connection's, whose other replies are sound.
                complete(Result.backendError(e));
            }
        }

        @Override
        public void failed(Exception error) {
            Status status = error instanceof ReplyLost && mutating ? Status.BACKEND_ERROR : Status.TEMPORARY_FAILURE;
            complete(Result.failure(status, error.getMessage()));
        }
    }

    private static Status status(int code) {
        return switch (code) {
            case ServerReply.KEY_NOT_FOUND -> Status.NOT_FOUND;
            case ServerReply.KEY_EXISTS -> Status.EXISTS;
            case ServerReply.TOO_LARGE -> Status.TOO_LARGE;
            case ServerReply.INVALID_ARGUMENTS -> Status.INVALID;
            case ServerReply.NOT_STORED -> Status.NOT_STORED;
            case ServerReply.NON_NUMERIC -> Status.NON_NUMERIC;
            case 0x82, 0x85, 0x86 -> Status.TEMPORARY_FAILURE; // out of memory, busy, temporary failure
            default -> Status.BACKEND_ERROR;
        };
    }

    private static Item item(ServerReply reply, long expiresAt) {
        int flags = reply.extras().length >= 4 ? ByteBuffer.wrap(reply.extras()).getInt() : 0;
        return new Item(reply.value(), flags, reply.cas(), expiresAt);
    }

    /** An absolute expiry in milliseconds as memcached's expiry field. */
    private int expiry(long expiresAt) {
        if (expiresAt == Item.NEVER) {
            return 0;
        }
        long seconds = Math.floorDiv(expiresAt - clock.millis() + 999, 1000);
        if (seconds <= 0) {
            return EXPIRED;
        }
        if (seconds <= RELATIVE_LIMIT_SECONDS) {
            return (int) seconds;
        }
        return (int) Math.min(0xffff_ffffL, Math.floorDiv(expiresAt + 999, 1000));
    }

    @Override
    public Map<String, String> stats() {
        long ejected = servers.stream().filter(server -> server.health().ejected()).count();
        return Map.of("servers", Integer.toString(servers.size()), "servers_ejected", Long.toString(ejected),
                "curr_items", Long.toString(items));
    }

    @Override
    public void close() {
        statsPoll.cancel(false);
        lister.close();
        for (Server server : servers) {
            for (ServerConnection connection : server.connections()) {
                connection.close();
            }
        }
    }
}
