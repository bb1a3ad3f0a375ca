package kvgate.backend.redis;

import io.lettuce.core.ScoredValue;
import io.lettuce.core.ScriptOutputType;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import kvgate.spi.Namespace;
import kvgate.spi.Operation;
import kvgate.spi.Result;
import kvgate.spi.Status;

/**
 * The counter protocol's resource counters in Redis, shared by every gateway on it, with the memory store's
 * semantics (consumption, interval maximum, collection of counters at 0). Each counter is a hash and a sorted set
 * of leases under one hash tag ({@link KeyLayout#counter}, {@link KeyLayout#counterLeases}), changed only by
 * {@code counter.lua}, so the check against the maximum and the grant are one atomic step whichever gateway asks. A
 * namespace's counter names are listed in its directory ({@link KeyLayout#counterDirectory}) for dumps, after each
 * grant.
 *
 * <p>Leases: an acquisition records its owner (one client connection) with a deadline {@code counter.lease_ms}
 * ahead; this gateway renews the deadlines of every owner it serves every third of that, until the owner's
 * connection closes (ReleaseAll). A gateway killed without closing its connections stops renewing, and every script
 * touching the counter first gives back what owners with a passed deadline held. Deadlines are the server's time.
 * An owner that released all it held of a counter has no lease on it any more: the renewal that finds so forgets
 * the counter for that owner, unless an acquisition of it started meanwhile. A give-back that fails (a connection
 * being re-established) is tried again on the shared connection until it runs or the lease would have ended.
 */
final class RedisCounters implements AutoCloseable {
    private record CounterId(Namespace namespace, String name) {
        byte[] nameBytes() {
            return name.getBytes(StandardCharsets.ISO_8859_1);
        }
    }

    private final RedisBackend backend;
    private final RedisConnections connections;
    private final byte[] leaseMillis;
    private final byte[] intervalSeconds;
    /**
     * What each owner served by this gateway may hold something of: whose leases to renew and release. Changed for
     * one counter of one owner only inside {@link Map#compute}, so that a renewal never forgets a counter an
     * acquisition is taking.
     */
    private final Map<String, Map<CounterId, Holding>> held = new ConcurrentHashMap<>();
    private final ScheduledExecutorService scheduler;
    private final long leaseMillisValue;
    private final Set<Namespace> namespaces = ConcurrentHashMap.newKeySet();
    private final AtomicLong objects = new AtomicLong();
    private final ScheduledFuture<?> renewal;

    RedisCounters(RedisBackend backend, RedisConnections connections, long leaseMillis, long intervalSeconds,
                  ScheduledExecutorService scheduler) {
        this.backend = backend;
        this.connections = connections;
        this.leaseMillis = KeyLayout.utf8(Long.toString(leaseMillis));
        this.leaseMillisValue = leaseMillis;
        this.scheduler = scheduler;
        this.intervalSeconds = KeyLayout.utf8(Long.toString(intervalSeconds));
        long every = Math.max(1, leaseMillis / 3);
        this.renewal = scheduler.scheduleWithFixedDelay(this::renewAndCount, every, every, TimeUnit.MILLISECONDS);
    }

    CompletionStage<Result> acquire(RedisConnections.Channel channel, Operation.Acquire acquire) {
        CounterId id = new CounterId(acquire.namespace(), new String(acquire.name(), StandardCharsets.ISO_8859_1));
        namespaces.add(acquire.namespace());
        // Noted before the script runs, so that a ReleaseAll started right after (the connection closed with the
        // acquisition in flight) releases it too; noting a refused acquisition is harmless.
        Map<CounterId, Holding> counters = held.computeIfAbsent(acquire.owner(), owner -> new ConcurrentHashMap<>());
        counters.compute(id, (key, holding) -> (holding == null ? new Holding() : holding).begin());
        return run(channel, id, "acquire", acquire.owner(), acquire.resources(), acquire.maximum())
                .whenComplete((reply, error) -> counters.computeIfPresent(id, (key, holding) -> holding.end()))
                .thenCompose(reply -> reply.ok() ? listed(id, reply.number(1) == 1, acquire.resources())
                        : CompletableFuture.completedFuture(reply.failure()));
    }

    /**
     * One owner's acquisitions of one counter through this gateway: how many are under way, and how many have
     * started, so that a renewal can tell that none started since it looked.
     */
    private record Holding(int underWay, long begun) {
        Holding() {
            this(0, 0);
        }

        Holding begin() {
            return new Holding(underWay + 1, begun + 1);
        }

        Holding end() {
            return new Holding(underWay - 1, begun);
        }
    }

    /**
     * Lists a counter in its namespace's directory, for dumps, after each grant (the directory is in another slot,
     * so the counter's script cannot). Listing is idempotent and each grant raises the name's score, which a dump's
     * clean-up checks ({@code unlist.lua}). The resources are held whatever becomes of the listing, so its failure
     * does not fail the acquisition; the next grant lists the counter again.
     */
    private CompletionStage<Result> listed(CounterId id, boolean created, long resources) {
        if (created) {
            objects.incrementAndGet();
        }
        Result acquired = new Result.Number(resources, 0);
        return connections.shared().commands().zincrby(KeyLayout.counterDirectory(id.namespace()), 1, id.nameBytes())
                .handle((score, error) -> acquired);
    }

    CompletionStage<Result> release(RedisConnections.Channel channel, Operation.Release release) {
        CounterId id = new CounterId(release.namespace(), new String(release.name(), StandardCharsets.ISO_8859_1));
        return run(channel, id, "release", release.owner(), release.resources(), 0)
                .thenApply(reply -> reply.ok() ? Result.DONE : reply.failure());
    }

    CompletionStage<Result> releaseAll(RedisConnections.Channel channel, Operation.ReleaseAll releaseAll) {
        Map<CounterId, Holding> counters = held.remove(releaseAll.owner());
        if (counters == null) {
            return CompletableFuture.completedFuture(Result.DONE);
        }
        List<CompletableFuture<RedisBackend.ScriptReply>> released = new ArrayList<>();
        long giveUpAt = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(leaseMillisValue);
        for (CounterId id : counters.keySet()) {
            released.add(giveBack(channel, id, releaseAll.owner(), giveUpAt));
        }
        // The close waits for the first attempts only; a retry goes on by itself.
        return CompletableFuture.allOf(released.toArray(CompletableFuture[]::new)).handle((done, error) -> Result.DONE);
    }

    /**
     * Gives back what {@code owner} holds of a counter. When that fails (a connection being re-established), it is
     * tried again on the shared connection a tenth of the lease later (at most a second), until it runs or the lease
     * it would end has run out anyway: left to the lease, a closed connection's resources stay taken for all of it,
     * which for a counter of one (a lock) is a lease-long outage after a blip.
     */
    private CompletableFuture<RedisBackend.ScriptReply> giveBack(RedisConnections.Channel channel, CounterId id,
                                                                 String owner, long giveUpAt) {
        CompletableFuture<RedisBackend.ScriptReply> attempt = run(channel, id, "releaseall", owner, 0, 0)
                .toCompletableFuture();
        attempt.whenComplete((reply, error) -> {
            long delay = Math.max(10, Math.min(1000, leaseMillisValue / 10));
            if (error == null || System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(delay) - giveUpAt > 0) {
                return;
            }
            try {
                scheduler.schedule(() -> giveBack(connections.shared(), id, owner, giveUpAt), delay,
                        TimeUnit.MILLISECONDS);
            } catch (RejectedExecutionException e) {
                // The gateway is stopping; the lease gives the resources back.
            }
        });
        return attempt;
    }

    CompletionStage<Result> read(RedisConnections.Channel channel, Operation.ReadCounter read) {
        CounterId id = new CounterId(read.namespace(), new String(read.name(), StandardCharsets.ISO_8859_1));
        return run(channel, id, "read", read.owner(), 0, 0)
                .thenApply(reply -> reply.ok() ? new Result.Number(reply.number(1), 0) : reply.failure());
    }

    CompletionStage<Result> dump(RedisConnections.Channel channel, Operation.DumpCounters dump) {
        byte[] directory = KeyLayout.counterDirectory(dump.namespace());
        return channel.commands().zrangeWithScores(directory, 0, -1).thenCompose(listed -> {
            List<CompletableFuture<RedisBackend.ScriptReply>> reads = new ArrayList<>(listed.size());
            for (ScoredValue<byte[]> name : listed) {
                CounterId id = new CounterId(dump.namespace(),
                        new String(name.getValue(), StandardCharsets.ISO_8859_1));
                reads.add(run(connections.shared(), id, "read", dump.owner(), 0, 0).toCompletableFuture());
            }
            return CompletableFuture.allOf(reads.toArray(CompletableFuture[]::new)).thenApply(done -> {
                List<Result.CounterState> states = new ArrayList<>(listed.size());
                for (int i = 0; i < listed.size(); i++) {
                    RedisBackend.ScriptReply reply = reads.get(i).join();
                    ScoredValue<byte[]> name = listed.get(i);
                    if (reply.ok()) {
                        states.add(new Result.CounterState(name.getValue(), reply.number(1), reply.number(2)));
                    } else {
                        // Collected at 0 since it was listed: unlisted unless a grant listed it again meanwhile.
                        backend.run(connections.shared(), Script.UNLIST, ScriptOutputType.INTEGER,
                                RedisBackend.keys(directory), name.getValue(),
                                KeyLayout.utf8(Long.toString((long) name.getScore())));
                    }
                }
                return (Result) new Result.Counters(states);
            });
        });
    }

    private CompletionStage<RedisBackend.ScriptReply> run(RedisConnections.Channel channel, CounterId id,
                                                         String operation, String owner, long resources,
                                                         long maximum) {
        byte[][] keys = RedisBackend.keys(KeyLayout.counter(id.namespace(), id.nameBytes()),
                KeyLayout.counterLeases(id.namespace(), id.nameBytes()));
        return backend.<List<Object>>run(channel, Script.COUNTER, ScriptOutputType.MULTI, keys,
                        KeyLayout.utf8(operation), owner.getBytes(StandardCharsets.UTF_8),
                        KeyLayout.utf8(Long.toString(resources)), KeyLayout.utf8(Long.toString(maximum)),
                        leaseMillis, intervalSeconds)
                .thenApply(RedisBackend.ScriptReply::new);
    }

    /**
     * Renews the lease of every owner this gateway serves, and counts the counters for the stats. A counter whose
     * renewal finds no lease of the owner (it released all it held) is forgotten for that owner, if no acquisition
     * of it was under way when the renewal was sent nor started since: such an acquisition may run after the
     * renewal and take a lease that must be renewed.
     */
    private void renewAndCount() {
        held.forEach((owner, counters) -> counters.forEach((id, holding) -> {
            boolean idle = holding.underWay() == 0;
            long begun = holding.begun();
            run(connections.shared(), id, "renew", owner, 0, 0).thenAccept(reply -> {
                if (idle && reply.ok() && reply.number(1) == 0) {
                    counters.computeIfPresent(id, (key, now) ->
                            now.underWay() == 0 && now.begun() == begun ? null : now);
                }
            });
        }));
        List<CompletableFuture<Long>> sizes = new ArrayList<>();
        for (Namespace namespace : namespaces) {
            sizes.add(connections.shared().commands().zcard(KeyLayout.counterDirectory(namespace))
                    .toCompletableFuture());
        }
        CompletableFuture.allOf(sizes.toArray(CompletableFuture[]::new)).thenRun(() -> {
            long total = 0;
            for (CompletableFuture<Long> size : sizes) {
                total += size.join();
            }
            objects.set(total);
        });
    }

    /** The reference server's counter statistics that mean something here; the rest are 0. */
    Map<String, String> stats() {
        Map<String, String> stats = new LinkedHashMap<>();
        stats.put("objects", Long.toString(objects.get()));
        return stats;
    }

    @Override
    public void close() {
        renewal.cancel(false);
    }
}
