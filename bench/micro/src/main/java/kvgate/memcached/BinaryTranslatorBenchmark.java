package kvgate.memcached;

import java.time.Clock;
import java.util.List;
import kvgate.bench.Benchmarked;
import kvgate.memcached.binary.BinaryCodecBenchmark;
import kvgate.memcached.binary.BinaryRequest;
import kvgate.memcached.binary.BinaryResponse;
import kvgate.memcached.couchbase.ClusterConfig;
import kvgate.net.Translation;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The memcached binary translator, both ways, for a Get (hit) and a Set: a decoded request to the operation to
 * dispatch, then the backend's result to the reply. The dispatch itself is left out: the result is handed over.
 */
public class BinaryTranslatorBenchmark extends Benchmarked {
    private TranslatorFixture fixture;
    private BinaryTranslator translator;
    private BinaryRequest get;
    private BinaryRequest set;

    @Setup
    public void setUp() {
        fixture = new TranslatorFixture();
        translator = new BinaryTranslator(fixture.manifests, Clock.systemUTC(), fixture.stats, null,
                new ClusterConfig(11211, 8091), 1024 * 1024, () -> true, null, null);
        get = new BinaryRequest(0x00, 0, 0, 7, 0, BinaryResponse.EMPTY, BinaryCodecBenchmark.KEY, BinaryResponse.EMPTY);
        set = new BinaryRequest(0x01, 0, 0, 8, 0, new byte[8], BinaryCodecBenchmark.KEY, BinaryCodecBenchmark.VALUE);
    }

    @TearDown
    public void tearDown() {
        fixture.close();
    }

    @Benchmark
    public Translation.Answer<BinaryResponse> getHit() {
        return forwardAndAnswer(translator.translate(get), fixture.hit);
    }

    @Benchmark
    public Translation.Answer<BinaryResponse> set() {
        return forwardAndAnswer(translator.translate(set), fixture.stored);
    }
}
