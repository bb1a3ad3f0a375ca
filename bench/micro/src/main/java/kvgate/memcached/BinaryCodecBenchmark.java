package kvgate.memcached;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.util.ReferenceCountUtil;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import kvgate.bench.Contexts;
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
 * The memcached binary codec on the frames of bin/bench's load: a Get and a Set of a 32-byte key with a 100-byte
 * value decoded from a direct buffer, and the replies to them encoded, each call as the pipeline makes it.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 3, time = 1)
public class BinaryCodecBenchmark {
    static final byte[] KEY = "load:000000000000000000000004242".getBytes(StandardCharsets.US_ASCII);
    static final byte[] VALUE = new byte[100];

    static {
        Arrays.fill(VALUE, (byte) 'v');
    }

    private final BinaryFrameDecoder decoder = new BinaryFrameDecoder(1 << 20, 32L << 20);
    private final BinaryResponseEncoder encoder = new BinaryResponseEncoder();
    private final List<Object> frames = new ArrayList<>(1);
    private ChannelHandlerContext decoderContext;
    private ChannelHandlerContext encoderContext;
    private ByteBuf getFrame;
    private ByteBuf setFrame;
    private ByteBuf out;
    private BinaryResponse getHit;
    private BinaryResponse stored;

    /** A request frame as a client writes it, in a direct buffer as the network hands it over. */
    static ByteBuf request(int opcode, byte[] extras, byte[] key, byte[] value) {
        ByteBuf frame = Unpooled.directBuffer(24 + extras.length + key.length + value.length);
        frame.writeByte(0x80).writeByte(opcode).writeShort(key.length).writeByte(extras.length).writeByte(0)
                .writeShort(0).writeInt(extras.length + key.length + value.length).writeInt(7).writeLong(0)
                .writeBytes(extras).writeBytes(key).writeBytes(value);
        return frame;
    }

    @Setup
    public void setUp() {
        decoderContext = Contexts.of(decoder);
        encoderContext = Contexts.of(encoder);
        getFrame = request(0x00, BinaryResponse.EMPTY, KEY, BinaryResponse.EMPTY);
        setFrame = request(0x01, new byte[8], KEY, VALUE);
        out = Unpooled.directBuffer(256);
        getHit = new BinaryResponse(0x00, 0, 7, 1234, new byte[4], BinaryResponse.EMPTY, VALUE);
        stored = new BinaryResponse(0x01, 0, 7, 1235, BinaryResponse.EMPTY, BinaryResponse.EMPTY,
                BinaryResponse.EMPTY);
    }

    @TearDown
    public void tearDown() {
        getFrame.release();
        setFrame.release();
        out.release();
    }

    private Object decode(ByteBuf frame) {
        frame.readerIndex(0);
        frames.clear();
        decoder.decodeFrame(decoderContext, frame, frames);
        Object decoded = frames.get(0);
        ReferenceCountUtil.release(decoded);
        return decoded;
    }

    @Benchmark
    public Object decodeGet() {
        return decode(getFrame);
    }

    @Benchmark
    public Object decodeSet() {
        return decode(setFrame);
    }

    @Benchmark
    public ByteBuf encodeGetHit() {
        out.clear();
        encoder.encode(encoderContext, getHit, out);
        return out;
    }

    @Benchmark
    public ByteBuf encodeStored() {
        out.clear();
        encoder.encode(encoderContext, stored, out);
        return out;
    }
}
