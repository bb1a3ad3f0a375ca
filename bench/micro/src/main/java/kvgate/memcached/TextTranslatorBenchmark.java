package kvgate.memcached;

import java.time.Clock;
import java.util.List;
import kvgate.bench.Benchmarked;
import kvgate.memcached.binary.BinaryCodecBenchmark;
import kvgate.memcached.text.TextCommand;
import kvgate.memcached.text.TextReply;
import kvgate.net.Translation;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The memcached text translator, both ways, for a get (hit) and a set, as {@link BinaryTranslatorBenchmark} measures
 * the binary one: a decoded command to the operation to dispatch, then the backend's result to the reply.
 */
public class TextTranslatorBenchmark extends Benchmarked {
    private TranslatorFixture fixture;
    private TextTranslator translator;
    private TextCommand get;
    private TextCommand set;

    @Setup
    public void setUp() {
        fixture = new TranslatorFixture();
        translator = new TextTranslator(fixture.manifests, Clock.systemUTC(), fixture.stats, null,
                new ItemFeatures(() -> true, () -> true, () -> true, () -> true), null, null);
        get = new TextCommand.Retrieve(List.of(BinaryCodecBenchmark.KEY), false, false, 0);
        set = new TextCommand.Store(TextCommand.StoreVerb.SET, BinaryCodecBenchmark.KEY, 0, 0,
                BinaryCodecBenchmark.VALUE, 0, false);
    }

    @TearDown
    public void tearDown() {
        fixture.close();
    }

    @Benchmark
    public Translation.Answer<TextReply> getHit() {
        return forwardAndAnswer(translator.translate(get), fixture.hit);
    }

    @Benchmark
    public Translation.Answer<TextReply> set() {
        return forwardAndAnswer(translator.translate(set), fixture.stored);
    }
}
