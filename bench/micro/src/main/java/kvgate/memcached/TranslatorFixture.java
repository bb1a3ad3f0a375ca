package kvgate.memcached;

import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import kvgate.bench.InstantBackend;
import kvgate.collections.BucketManifests;
import kvgate.collections.ManifestLimits;
import kvgate.dispatch.Dispatcher;
import kvgate.memcached.binary.BinaryCodecBenchmark;
import kvgate.metrics.GatewayMetrics;
import kvgate.route.BackendRoute;
import kvgate.spi.Item;
import kvgate.spi.Result;

/**
 * What a memcached translator needs around it in a benchmark: the default bucket's manifests, read through a
 * dispatcher over a backend that answers at once, and the stats. Stats are read only by stats commands, which the
 * benchmarks do not send: no settings are needed.
 */
final class TranslatorFixture implements AutoCloseable {
    private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor(task -> {
        Thread thread = new Thread(task, "manifest-refresh");
        thread.setDaemon(true);
        return thread;
    });
    final BucketManifests manifests;
    final MemcachedStats stats;
    /** What the backend answers the get and the set measured with: a hit on the key's item, and its new CAS. */
    final Result hit = new Result.Value(new Item(BinaryCodecBenchmark.VALUE, 0, 1234, Item.NEVER));
    final Result stored = new Result.Stored(1235);

    TranslatorFixture() {
        InstantBackend backend = new InstantBackend();
        GatewayMetrics metrics = new GatewayMetrics();
        Dispatcher dispatcher = new Dispatcher(BackendRoute.alone(backend), null, metrics, scheduler);
        manifests = new BucketManifests(Set.of(BucketManifests.DEFAULT_BUCKET), dispatcher,
                new ManifestLimits(1000, 1000), 60_000, scheduler);
        manifests.start(10_000);
        stats = new MemcachedStats(metrics, backend, "instant", null, 1);
    }

    @Override
    public void close() {
        scheduler.shutdownNow();
    }
}
