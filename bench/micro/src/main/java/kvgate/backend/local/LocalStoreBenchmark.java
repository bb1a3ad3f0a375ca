package kvgate.backend.local;

import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import kvgate.bench.Benchmarked;
import kvgate.spi.Backend;
import kvgate.spi.Item;
import kvgate.spi.Namespace;
import kvgate.spi.Operation;
import kvgate.spi.Result;
import kvgate.spi.StoreMode;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The local store in memory ({@code local.path = :memory:}), called as the dispatcher calls it: a Get of a stored
 * key and a Set replacing one, with keys of 32 bytes and values of 100 bytes, the load of {@code bin/bench}. With a
 * million keys the index no longer fits in the processor's caches, as in the gateway under that load; ten thousand
 * keys show the cost of the lookup itself. {@code getBurst} hands the store sixteen gets at once, as a pipelined burst
 * reaches it, which it reads ahead before it looks them up; its figure is per get.
 *
 * <p>{@code before}: items stored ahead of the ones read and never read again, as memaslap's sets leave in
 * {@code bin/bench} before kvgate-load's keys arrive. Keys stored after a crowd of others are the ones whose probes
 * pass over cold entries, so ten thousand keys after 600,000 show what a lookup pays for the crowd.
 *
 * <p>Run in a JVM set up as {@code bin/bench} sets up the gateway's (a fixed heap, a young generation of 64 MiB, the
 * parallel collector): with the JVM's default collector and heap, the error of a figure with a million items stored
 * was several times the figure (±931 ns on 640 ns, ±1,843 ns on 302 ns); with these, ±68 and ±254.
 */
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g", "-Xmn64m", "-XX:+AlwaysPreTouch", "-XX:+UseParallelGC"})
public class LocalStoreBenchmark extends Benchmarked {
    private static final int BURST = 16;

    @Param({"10000", "1000000"})
    public int items;

    @Param({"0", "600000"})
    public int before;

    private Backend store;
    private byte[][] keys;
    private byte[] value;
    private int next;

    @Setup
    public void setUp() {
        store = LocalStoreFootprint.openInMemory();
        byte[][] all = LocalStoreFootprint.keys(before + items);
        keys = Arrays.copyOfRange(all, before, before + items);
        value = LocalStoreFootprint.value();
        for (byte[] key : all) {
            set(key); // the crowd first, then the keys read
        }
        System.gc(); // the fill's garbage, collected before the iterations rather than in them
    }

    @TearDown
    public void tearDown() throws Exception {
        store.close();
    }

    /** The next key in an order that jumps across the whole set (a stride prime to its size), as random keys do. */
    private byte[] nextKey() {
        next += 7_919;
        if (next >= items) {
            next -= items;
        }
        return keys[next];
    }

    private Result set(byte[] key) {
        return done(store.execute(new Operation.Store(Namespace.DEFAULT, key, StoreMode.SET, value, 0, Item.NEVER,
                0)).toCompletableFuture());
    }

    private static Result done(CompletableFuture<Result> reply) {
        Result result = reply.getNow(null);
        if (result == null || !result.ok()) {
            throw new IllegalStateException("the store did not answer at once with success: " + result);
        }
        return result;
    }

    @Benchmark
    public Result getHit() {
        return done(store.execute(new Operation.Get(Namespace.DEFAULT, nextKey())).toCompletableFuture());
    }

    @Benchmark
    public Result set() {
        return set(nextKey());
    }

    @Benchmark
    @OperationsPerInvocation(BURST)
    public Result getBurst() {
        Operation[] burst = new Operation[BURST];
        for (int i = 0; i < BURST; i++) {
            burst[i] = new Operation.Get(Namespace.DEFAULT, nextKey());
        }
        Result last = null;
        for (CompletionStage<Result> result : store.executeAll(Arrays.asList(burst))) {
            last = done(result.toCompletableFuture());
        }
        return last;
    }
}
