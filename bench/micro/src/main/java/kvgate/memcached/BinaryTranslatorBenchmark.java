package kvgate.memcached;

import java.time.Clock;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import kvgate.bench.InstantBackend;
import kvgate.collections.BucketManifests;
import kvgate.collections.ManifestLimits;
import kvgate.dispatch.Dispatcher;
import kvgate.metrics.GatewayMetrics;
import kvgate.server.Translation;
import kvgate.spi.Item;
import kvgate.spi.Result;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The memcached binary translator, both ways, for a Get (hit) and a Set: a decoded request to the operation to
 * dispatch, then the backend's result to the reply. The dispatch itself is left out: the result is handed over.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 3, time = 1)
public class BinaryTranslatorBenchmark {
    private ScheduledExecutorService scheduler;
    private BinaryTranslator translator;
    private BinaryRequest get;
    private BinaryRequest set;
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
        Dispatcher dispatcher = new Dispatcher(backend, List.of(), metrics, scheduler);
        BucketManifests manifests = new BucketManifests(Set.of(BucketManifests.DEFAULT_BUCKET), dispatcher,
                new ManifestLimits(1000, 1000), 60_000, scheduler);
        manifests.start(10_000);
        // Stats are read only by the Stat opcode, which this benchmark does not send: no settings needed.
        translator = new BinaryTranslator(manifests, Clock.systemUTC(), new MemcachedStats(metrics, backend,
                "instant", null, 1));
        get = new BinaryRequest(0x00, 0, 0, 7, 0, BinaryResponse.EMPTY, BinaryCodecBenchmark.KEY, BinaryResponse.EMPTY);
        set = new BinaryRequest(0x01, 0, 0, 8, 0, new byte[8], BinaryCodecBenchmark.KEY, BinaryCodecBenchmark.VALUE);
        hit = new Result.Value(new Item(BinaryCodecBenchmark.VALUE, 0, 1234, Item.NEVER));
        storedResult = new Result.Stored(1235);
    }

    @TearDown
    public void tearDown() {
        scheduler.shutdownNow();
    }

    private Translation.Answer<BinaryResponse> roundTrip(BinaryRequest request, Result result) {
        Translation<BinaryResponse> translation = translator.translate(request);
        return ((Translation.Forward<BinaryResponse>) translation).reply().apply(result);
    }

    @Benchmark
    public Translation.Answer<BinaryResponse> getHit() {
        return roundTrip(get, hit);
    }

    @Benchmark
    public Translation.Answer<BinaryResponse> set() {
        return roundTrip(set, storedResult);
    }
}
