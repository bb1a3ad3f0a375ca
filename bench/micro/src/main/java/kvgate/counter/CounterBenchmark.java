package kvgate.counter;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import kvgate.bench.Benchmarked;
import kvgate.bench.Contexts;
import kvgate.counterstore.MemoryCounterStore;
import kvgate.metrics.GatewayMetrics;
import kvgate.net.Translation;
import kvgate.spi.Result;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The counter protocol's codec and translator on an Acquire of one resource of a 32-byte name, as kvgate-load sends
 * it: the frame decoded from a direct buffer, translated to its operation and back from the store's result, and
 * the reply encoded.
 */
public class CounterBenchmark extends Benchmarked {
    private static final byte[] NAME = "load:000000000000000000000004242".getBytes(StandardCharsets.US_ASCII);

    private final CounterFrameDecoder decoder = new CounterFrameDecoder();
    private final CounterResponseEncoder encoder = new CounterResponseEncoder();
    private Decoding decoding;
    private Encoding acquiredEncoding;
    private ByteBuf acquireFrame;
    private ByteBuf out;
    private CounterResponse acquired;
    private CounterFrame.Request acquire;
    private CounterTranslator translator;
    private Result granted;

    @Setup
    public void setUp() {
        ChannelHandlerContext decoderContext = Contexts.of(decoder);
        decoding = (in, out) -> decoder.decodeFrame(decoderContext, in, out);
        acquireFrame = Unpooled.directBuffer(64);
        acquireFrame.writeByte(0x90).writeByte(0x02).writeShort(0).writeInt(8 + 2 + NAME.length).writeInt(7)
                .writeInt(1).writeInt(-1).writeShort(NAME.length).writeBytes(NAME);
        out = Unpooled.directBuffer(64);
        acquired = new CounterResponse(0x02, CounterStatus.OK, 7, new byte[] {0, 0, 0, 1});
        acquiredEncoding = buffer -> encoder.encode(acquired, buffer);
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
        return decodeOne(decoding, acquireFrame);
    }

    @Benchmark
    public ByteBuf encodeAcquired() {
        return encodeOne(acquiredEncoding, out);
    }

    @Benchmark
    public Translation.Answer<CounterResponse> translateAcquire() {
        return forwardAndAnswer(translator.translate(acquire), granted);
    }
}
