package kvgate.memcached.binary;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import kvgate.bench.Benchmarked;
import kvgate.bench.Contexts;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The memcached binary codec on the frames of bin/bench's load: a Get and a Set of a 32-byte key with a 100-byte
 * value decoded from a direct buffer, and the replies to them encoded, each call as the pipeline makes it.
 */
public class BinaryCodecBenchmark extends Benchmarked {
    public static final byte[] KEY = "load:000000000000000000000004242".getBytes(StandardCharsets.US_ASCII);
    public static final byte[] VALUE = new byte[100];

    static {
        Arrays.fill(VALUE, (byte) 'v');
    }

    private final BinaryFrameDecoder decoder = new BinaryFrameDecoder(1 << 20, 32L << 20);
    private final BinaryResponseEncoder encoder = new BinaryResponseEncoder();
    private Decoding decoding;
    private Encoding getHitEncoding;
    private Encoding storedEncoding;
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
        ChannelHandlerContext decoderContext = Contexts.of(decoder);
        decoding = (in, out) -> decoder.decodeFrame(decoderContext, in, out);
        getFrame = request(0x00, BinaryResponse.EMPTY, KEY, BinaryResponse.EMPTY);
        setFrame = request(0x01, new byte[8], KEY, VALUE);
        out = Unpooled.directBuffer(256);
        getHit = new BinaryResponse(0x00, 0, 7, 1234, new byte[4], BinaryResponse.EMPTY, VALUE);
        stored = new BinaryResponse(0x01, 0, 7, 1235, BinaryResponse.EMPTY, BinaryResponse.EMPTY,
                BinaryResponse.EMPTY);
        getHitEncoding = buffer -> encoder.encode(getHit, buffer);
        storedEncoding = buffer -> encoder.encode(stored, buffer);
    }

    @TearDown
    public void tearDown() {
        getFrame.release();
        setFrame.release();
        out.release();
    }

    @Benchmark
    public Object decodeGet() {
        return decodeOne(decoding, getFrame);
    }

    @Benchmark
    public Object decodeSet() {
        return decodeOne(decoding, setFrame);
    }

    @Benchmark
    public ByteBuf encodeGetHit() {
        return encodeOne(getHitEncoding, out);
    }

    @Benchmark
    public ByteBuf encodeStored() {
        return encodeOne(storedEncoding, out);
    }
}
