package kvgate.memcached;

import java.time.Clock;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import kvgate.bench.Benchmarked;
import kvgate.bench.InstantBackend;
import kvgate.collections.BucketManifests;
import kvgate.collections.ManifestLimits;
import kvgate.dispatch.Dispatcher;
import kvgate.memcached.binary.BinaryCodecBenchmark;
import kvgate.memcached.text.TextCommand;
import kvgate.memcached.text.TextReply;
import kvgate.metrics.GatewayMetrics;
import kvgate.net.Translation;
import kvgate.route.BackendRoute;
import kvgate.spi.Item;
import kvgate.spi.Result;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The memcached text translator, both ways, for a get (hit) and a set, as {@link BinaryTranslatorBenchmark} measures
 * the binary one: a decoded command to the operation to dispatch, then the backend's result to the reply.
 */
public class TextTranslatorBenchmark extends Benchmarked {
    private ScheduledExecutorService scheduler;
    private TextTranslator translator;
    private TextCommand get;
    private TextCommand set;
    private Result hit;
    private Result storedResult;

    @Setup
    public void setUp() {
        scheduler = Executors.newSingleThreadScheduledExecutor(task -> {
            Thread thread = new Thread(task, "manifest-refresh");
            thread.setDaemon(true);
            return thread;
        });
        InstantBackend backend = new InstantBackend();
        GatewayMetrics metrics = new GatewayMetrics();
        Dispatcher dispatcher = new Dispatcher(BackendRoute.alone(backend), null, metrics, scheduler);
        BucketManifests manifests = new BucketManifests(Set.of(BucketManifests.DEFAULT_BUCKET), dispatcher,
                new ManifestLimits(1000, 1000), 60_000, scheduler);
        manifests.start(10_000);
        translator = new TextTranslator(manifests, Clock.systemUTC(), new MemcachedStats(metrics, backend,
                "instant", null, 1), null, new ItemFeatures(() -> true, () -> true), null, null);
        get = new TextCommand.Retrieve(List.of(BinaryCodecBenchmark.KEY), false, false, 0);
        set = new TextCommand.Store(TextCommand.StoreVerb.SET, BinaryCodecBenchmark.KEY, 0, 0,
                BinaryCodecBenchmark.VALUE, 0, false);
        hit = new Result.Value(new Item(BinaryCodecBenchmark.VALUE, 0, 1234, Item.NEVER));
        storedResult = new Result.Stored(1235);
    }

    @TearDown
    public void tearDown() {
        scheduler.shutdownNow();
    }

    @Benchmark
    public Translation.Answer<TextReply> getHit() {
        return forwardAndAnswer(translator.translate(get), hit);
    }

    @Benchmark
    public Translation.Answer<TextReply> set() {
        return forwardAndAnswer(translator.translate(set), storedResult);
    }
}
