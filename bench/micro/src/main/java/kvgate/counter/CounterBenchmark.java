package kvgate.counter;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.util.ReferenceCountUtil;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import kvgate.bench.Contexts;
import kvgate.metrics.GatewayMetrics;
import kvgate.server.Translation;
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
 * The counter protocol's codec and translator on an Acquire of one resource of a 32-byte name, as kvgate-load sends
 * it: the frame decoded from a direct buffer, translated to its operation and back from the store's result, and
 * the reply encoded.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 3, time = 1)
public class CounterBenchmark {
    private static final byte[] NAME = "load:000000000000000000000004242".getBytes(StandardCharsets.US_ASCII);

    private final CounterFrameDecoder decoder = new CounterFrameDecoder();
    private final CounterResponseEncoder encoder = new CounterResponseEncoder();
    private final List<Object> frames = new ArrayList<>(1);
    private ChannelHandlerContext decoderContext;
    private ChannelHandlerContext encoderContext;
    private ByteBuf acquireFrame;
    private ByteBuf out;
    private CounterResponse acquired;
    private CounterFrame.Request acquire;
    private CounterTranslator translator;
    private Result granted;

    @Setup
    public void setUp() {
        decoderContext = Contexts.of(decoder);
        encoderContext = Contexts.of(encoder);
        acquireFrame = Unpooled.directBuffer(64);
        acquireFrame.writeByte(0x90).writeByte(0x02).writeShort(0).writeInt(8 + 2 + NAME.length).writeInt(7)
                .writeInt(1).writeInt(-1).writeShort(NAME.length).writeBytes(NAME);
        out = Unpooled.directBuffer(64);
        acquired = new CounterResponse(0x02, CounterStatus.OK, 7, new byte[] {0, 0, 0, 1});
        byte[] body = new byte[acquireFrame.readableBytes() - 12];
        acquireFrame.getBytes(12, body);
        acquire = new CounterFrame.Request(0x02, 7, body);
        MemoryCounterStore store = new MemoryCounterStore(Clock.systemUTC(), 86_400, 1024);
        translator = new CounterTranslator("bench/1", new CounterStats(new GatewayMetrics(), store));
        granted = new Result.Number(1, 0); // the resources acquired
    }

    @TearDown
    public void tearDown() {
        acquireFrame.release();
        out.release();
    }

    @Benchmark
    public Object decodeAcquire() {
        acquireFrame.readerIndex(0);
        frames.clear();
        decoder.decodeFrame(decoderContext, acquireFrame, frames);
        Object decoded = frames.get(0);
        ReferenceCountUtil.release(decoded);
        return decoded;
    }

    @Benchmark
    public ByteBuf encodeAcquired() {
        out.clear();
        encoder.encode(encoderContext, acquired, out);
        return out;
    }

    @Benchmark
    public Translation.Answer<CounterResponse> translateAcquire() {
        Translation<CounterResponse> translation = translator.translate(acquire);
        return ((Translation.Forward<CounterResponse>) translation).reply().apply(granted);
    }
}
