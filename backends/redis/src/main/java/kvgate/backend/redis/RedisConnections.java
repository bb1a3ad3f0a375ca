package kvgate.backend.redis;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SetArgs;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.Delay;
import io.netty.channel.EventLoopGroup;
import io.netty.util.concurrent.EventExecutor;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.LoggerFactory;

/**
 * The Lettuce connections of one backend: a shared one that flushes every command (for threads that are not the
 * gateway's), and one per gateway event loop with manual flushing, so that a pipelined burst from a client goes to
 * Redis in one write (on a cluster: one write per node, Lettuce keeping a connection per node inside each cluster
 * connection, all opened at start). A Lettuce connection is safe to share between threads,
 * but its auto-flush switch is the connection's, not the caller's: turning it off on a shared connection would let
 * one thread's flush carry, or miss, another's commands. A connection used only by the one event loop that owns it
 * has no such race.
 *
 * <p>Lettuce runs on {@link ClientResources} of its own, with as many I/O threads as the gateway has event loops
 * (at least two, Lettuce's minimum):
 * its event loop groups are created and shut down by its resources (closing waits for them), and the transport it
 * picks need not be the one the gateway's loops were built for.
 *
 * <p>Failing fast: commands are rejected at once while a connection is down (never buffered), every command has a
 * timeout, and connections reconnect on their own, retrying at most every second.
 */
final class RedisConnections implements AutoCloseable {
    /**
     * On a cluster, how often each loop's connection is flushed besides after each batch: a command that Lettuce
     * writes later on its own (to a node whose connection was still opening, or again after a MOVED or ASK
     * redirection) is queued after the batch's flush, and goes out at the latest with this sweep.
     */
    private static final long SWEEP_MILLIS = 10;

    /** When a connection's commands are written to the socket. */
    enum Flushing {
        /** Each as it is sent: the shared connection, used from any thread. */
        AUTO,
        /** Queued until {@link Channel#flush}: an event loop's own connection, one write per batch. */
        MANUAL
    }

    /** One connection and its commands. */
    record Channel(StatefulConnection<byte[], byte[]> connection, RedisClusterAsyncCommands<byte[], byte[]> commands,
                   Flushing flushing) {
        /** Sends what was queued since the last call (a no-op for the shared, auto-flushing connection). */
        void flush() {
            if (flushing == Flushing.MANUAL) {
                connection.flushCommands();
            }
        }
    }

    /** What to connect to: one server, or the seed nodes of a cluster. */
    sealed interface Target {
        record Standalone(RedisURI uri) implements Target {
        }

        record Cluster(List<RedisURI> seeds) implements Target {
        }
    }

    private final ClientResources resources;
    private final AbstractRedisClient client;
    /** The standalone server as {@link #nodeOf} names it; null on a cluster. */
    private final String standaloneNode;
    private final Channel shared;
    private final Map<EventExecutor, Channel> byLoop;
    private final List<EventExecutor> loops;
    /** Whether a reload of the scripts is under way ({@link #reloadScripts}). */
    private final AtomicBoolean reloading = new AtomicBoolean();
    /** The cluster's periodic flushes of each loop's connection (see {@link #open}); empty on a standalone server. */
    private final List<ScheduledFuture<?>> sweeps;

    private RedisConnections(ClientResources resources, AbstractRedisClient client, Channel shared,
                             Map<EventExecutor, Channel> byLoop, boolean cluster, String standaloneNode) {
        this.standaloneNode = standaloneNode;
        this.resources = resources;
        this.client = client;
        this.shared = shared;
        this.byLoop = byLoop;
        this.loops = List.copyOf(byLoop.keySet());
        List<ScheduledFuture<?>> sweeps = new ArrayList<>();
        if (cluster) {
            byLoop.forEach((loop, channel) -> sweeps.add(loop.scheduleWithFixedDelay(channel::flush,
                    SWEEP_MILLIS, SWEEP_MILLIS, TimeUnit.MILLISECONDS)));
        }
        this.sweeps = List.copyOf(sweeps);
    }

    /**
     * Lettuce's switch for io_uring, read once when Lettuce first looks for native transports. Netty's package
     * carries both epoll's and io_uring's natives, and with both there Lettuce takes epoll and warns of it at every
     * look, several times a start; saying so up front keeps its choice and the operator's log clean. A value set
     * on the command line is left alone.
     */
    private static final String LETTUCE_IO_URING = "io.lettuce.core.iouring";

    /** Connects; blocks until every connection is up, or fails with what went wrong. */
    static RedisConnections open(Target target, Duration timeout, Duration topologyRefresh,
                                 EventLoopGroup eventLoops) {
        return open(target, timeout, topologyRefresh, eventLoops, false);
    }

    /**
     * As above; with {@code plain}, for the application's own keys ({@link PlainRedisBackend}): nothing of the
     * gateway's is written to that Redis (no layout marker, no scripts).
     */
    static RedisConnections open(Target target, Duration timeout, Duration topologyRefresh,
                                 EventLoopGroup eventLoops, boolean plain) {
        if (System.getProperty(LETTUCE_IO_URING) == null) {
            System.setProperty(LETTUCE_IO_URING, "false");
        }
        int threads = 0;
        for (EventExecutor loop : eventLoops) {
            threads++;
        }
        ClientResources resources = ClientResources.builder()
                .ioThreadPoolSize(threads)
                .computationThreadPoolSize(threads)
                .reconnectDelay(Delay.exponential(Duration.ofMillis(20), Duration.ofSeconds(1), 2,
                        TimeUnit.MILLISECONDS))
                .build();
        AbstractRedisClient client = null;
        List<StatefulConnection<byte[], byte[]>> opened = new ArrayList<>();
        try {
            Map<EventExecutor, Channel> byLoop = new IdentityHashMap<>();
            Channel shared;
            if (target instanceof Target.Cluster cluster) {
                cluster.seeds().forEach(seed -> seed.setTimeout(timeout));
                RedisClusterClient clusterClient = RedisClusterClient.create(resources, cluster.seeds());
                client = clusterClient;
                ClusterClientOptions.Builder options = ClusterClientOptions.builder();
                failFast(options, timeout);
                clusterClient.setOptions(options.topologyRefreshOptions(ClusterTopologyRefreshOptions.builder()
                                .enablePeriodicRefresh(topologyRefresh)
                                .enableAllAdaptiveRefreshTriggers()
                                .build())
                        .build());
                shared = clusterChannel(clusterClient, opened, Flushing.AUTO);
                for (EventExecutor loop : eventLoops) {
                    byLoop.put(loop, clusterChannel(clusterClient, opened, Flushing.MANUAL));
                }
            } else {
                RedisURI uri = ((Target.Standalone) target).uri();
                uri.setTimeout(timeout);
                RedisClient standalone = RedisClient.create(resources, uri);
                client = standalone;
                standalone.setOptions(failFast(ClientOptions.builder(), timeout).build());
                shared = standaloneChannel(standalone, opened, Flushing.AUTO);
                for (EventExecutor loop : eventLoops) {
                    byLoop.put(loop, standaloneChannel(standalone, opened, Flushing.MANUAL));
                }
            }
            if (!plain) {
                checkLayout(shared);
                warnOfEviction(shared);
            }
            RedisConnections connections = new RedisConnections(resources, client, shared, byLoop,
                    target instanceof Target.Cluster, target instanceof Target.Standalone standalone
                            ? standalone.uri().getSocket() != null ? standalone.uri().getSocket()
                            : standalone.uri().getHost() + ":" + standalone.uri().getPort() : null);
            if (!plain) {
                connections.loadScripts().toCompletableFuture().join();
            }
            return connections;
        } catch (RuntimeException e) {
            opened.forEach(StatefulConnection::close);
            if (client != null) {
                client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
            }
            shutDown(resources);
            throw e;
        }
    }

    /**
     * Commands fail rather than wait: rejected while disconnected (not buffered), timed out after {@code timeout};
     * connections come back on their own. (A cluster's builder returns itself from these, so it is set too.)
     */
    private static ClientOptions.Builder failFast(ClientOptions.Builder options, Duration timeout) {
        return options.disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                .autoReconnect(true)
                .socketOptions(SocketOptions.builder().connectTimeout(timeout).keepAlive(true).build())
                .timeoutOptions(TimeoutOptions.enabled(timeout));
    }

    private static Channel clusterChannel(RedisClusterClient client, List<StatefulConnection<byte[], byte[]>> opened,
                                          Flushing flushing) {
        StatefulRedisClusterConnection<byte[], byte[]> connection = client.connect(ByteArrayCodec.INSTANCE);
        opened.add(connection);
        // Node connections open lazily, and commands sent while one is still connecting would be rejected:
        // open them all now. Nodes that join later are connected at their first command.
        // (Lettuce routes by host and port, so those name the connections to open.)
        for (RedisClusterNode node : connection.getPartitions()) {
            connection.getConnection(node.getUri().getHost(), node.getUri().getPort());
        }
        connection.setAutoFlushCommands(flushing == Flushing.AUTO);
        return new Channel(connection, connection.async(), flushing);
    }

    private static Channel standaloneChannel(RedisClient client, List<StatefulConnection<byte[], byte[]>> opened,
                                             Flushing flushing) {
        StatefulRedisConnection<byte[], byte[]> connection = client.connect(ByteArrayCodec.INSTANCE);
        opened.add(connection);
        connection.setAutoFlushCommands(flushing == Flushing.AUTO);
        return new Channel(connection, connection.async(), flushing);
    }

    /**
     * Notes this code's key layout in Redis if none is, and refuses a store laid out otherwise (another shard count,
     * say): reading it with this layout would orphan its items rather than fail.
     */
    private static void checkLayout(Channel shared) {
        byte[] version = KeyLayout.utf8(KeyLayout.VERSION);
        shared.commands().set(KeyLayout.LAYOUT, version, SetArgs.Builder.nx()).toCompletableFuture().join();
        byte[] stored = shared.commands().get(KeyLayout.LAYOUT).toCompletableFuture().join();
        if (!Arrays.equals(stored, version)) {
            throw new IllegalStateException("Redis holds kvgate data in key layout '"
                    + (stored == null ? "" : new String(stored, StandardCharsets.UTF_8)) + "', this gateway uses '"
                    + KeyLayout.VERSION + "': point it at another Redis (or database), or empty this one");
        }
    }

    /**
     * Warns when Redis may evict any key (an {@code allkeys-*} policy): a flush and a scan find a namespace's items
     * through its index sets, so an index set evicted before its items leaves them behind a flush that answered
     * success. A Redis that refuses CONFIG (some managed services) is not checked.
     */
    private static void warnOfEviction(Channel shared) {
        String policy;
        try {
            policy = shared.commands().configGet("maxmemory-policy").toCompletableFuture().get(5, TimeUnit.SECONDS)
                    .get("maxmemory-policy");
        } catch (Exception e) {
            return;
        }
        if (policy != null && policy.startsWith("allkeys")) {
            LoggerFactory.getLogger(RedisConnections.class).warn("Redis evicts any key (maxmemory-policy {}): a "
                    + "flush or a scan misses the items whose index set it evicted; use noeviction or a volatile-* "
                    + "policy", policy);
        }
    }

    /**
     * Loads every script into every node, replicas included (Redis does not pass SCRIPT LOAD on to them, and a
     * replica promoted by a failover would otherwise start without them). Completes when all are loaded, or fails
     * when a master could not take them.
     */
    private CompletionStage<Void> loadScripts() {
        List<CompletableFuture<?>> loads = new ArrayList<>();
        if (shared.connection() instanceof StatefulRedisClusterConnection<byte[], byte[]> cluster) {
            for (RedisClusterNode node : cluster.getPartitions()) {
                CompletableFuture<Void> load = cluster.getConnectionAsync(node.getUri().getHost(),
                        node.getUri().getPort()).thenCompose(connection -> loadScripts(connection.async()));
                // A replica that is down now gets them when it is promoted and answers NOSCRIPT.
                loads.add(node.is(RedisClusterNode.NodeFlag.UPSTREAM) ? load : load.exceptionally(error -> null));
            }
        } else {
            loads.add(loadScripts(((StatefulRedisConnection<byte[], byte[]>) shared.connection()).async()));
        }
        return CompletableFuture.allOf(loads.toArray(CompletableFuture[]::new));
    }

    private static CompletableFuture<Void> loadScripts(RedisScriptingAsyncCommands<byte[], byte[]> node) {
        List<CompletableFuture<String>> loads = new ArrayList<>(Script.ALL.length);
        for (Script script : Script.ALL) {
            loads.add(node.scriptLoad(script.body()).toCompletableFuture());
        }
        return CompletableFuture.allOf(loads.toArray(CompletableFuture[]::new));
    }

    /**
     * Loads the scripts again, in the background, after a node answered NOSCRIPT (restarted empty, or a replica
     * promoted without them). At most one reload runs at a time; the operation that met NOSCRIPT is not retried
     * here (a retry would go out after the commands pipelined behind it), its client gets a temporary failure.
     */
    void reloadScripts() {
        if (reloading.compareAndSet(false, true)) {
            try {
                loadScripts().whenComplete((done, error) -> reloading.set(false));
            } catch (RuntimeException e) {
                reloading.set(false);
            }
        }
    }

    /**
     * The node a key's commands go to, as {@code host:port}: the standalone server (its socket's path for one on a
     * Unix socket), or on a cluster the master holding the key's slot in the topology known now (null while none is
     * known for it).
     */
    String nodeOf(byte[] key) {
        if (!(client instanceof RedisClusterClient cluster)) {
            return standaloneNode;
        }
        RedisClusterNode node = cluster.getPartitions().getPartitionBySlot(SlotHash.getSlot(key));
        return node == null ? null : node.getUri().getHost() + ":" + node.getUri().getPort();
    }

    /** Whether {@code node} (as {@link #nodeOf} names it) is a master of the topology known now; always standalone. */
    boolean knows(String node) {
        if (!(client instanceof RedisClusterClient cluster)) {
            return true;
        }
        for (RedisClusterNode known : cluster.getPartitions()) {
            if (node.equals(known.getUri().getHost() + ":" + known.getUri().getPort())) {
                return true;
            }
        }
        return false;
    }

    /** A PING to {@code node} (as {@link #nodeOf} names it), on its own connection; completes when it is answered. */
    CompletionStage<?> ping(String node) {
        if (!(shared.connection() instanceof StatefulRedisClusterConnection<byte[], byte[]> cluster)) {
            return shared.commands().ping();
        }
        int colon = node.lastIndexOf(':');
        return cluster.getConnectionAsync(node.substring(0, colon), Integer.parseInt(node.substring(colon + 1)))
                .thenCompose(connection -> connection.async().ping());
    }

    /** The connection for the calling thread: its own on a gateway event loop, the shared one elsewhere. */
    Channel current() {
        for (EventExecutor loop : loops) {
            if (loop.inEventLoop()) {
                return byLoop.get(loop);
            }
        }
        return shared;
    }

    /** Each gateway event loop's own connection. */
    Map<EventExecutor, Channel> loopChannels() {
        return Collections.unmodifiableMap(byLoop);
    }

    /** The auto-flushing connection, safe from any thread (Lettuce's own completions included). */
    Channel shared() {
        return shared;
    }

    @Override
    public void close() {
        sweeps.forEach(sweep -> sweep.cancel(false));
        byLoop.values().forEach(channel -> channel.connection().close());
        shared.connection().close();
        client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        shutDown(resources);
    }

    /** Stops Lettuce's threads and waits (bounded) until they are gone, so none outlives the backend. */
    private static void shutDown(ClientResources resources) {
        if (!resources.shutdown(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS)) {
            LoggerFactory.getLogger(RedisConnections.class).warn("Lettuce's threads did not stop within 5 s");
        }
    }
}
