package kvgate.memcached.text;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import java.nio.charset.StandardCharsets;
import java.util.List;
import kvgate.bench.Benchmarked;
import kvgate.bench.Contexts;
import kvgate.memcached.binary.BinaryCodecBenchmark;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The memcached text codec on the same requests as {@link BinaryCodecBenchmark}'s: a get and a set of a 32-byte key
 * with a 100-byte value decoded from a direct buffer, and the replies to them encoded, so that the two protocols'
 * paths compare call for call.
 */
public class TextCodecBenchmark extends Benchmarked {
    private final TextDecoder decoder = new TextDecoder(1 << 20, 1 << 20);
    private final TextReplyEncoder encoder = new TextReplyEncoder();
    private Decoding decoding;
    private Encoding getHitEncoding;
    private Encoding storedEncoding;
    private ByteBuf getLine;
    private ByteBuf setLines;
    private ByteBuf out;

    private static ByteBuf request(String line, byte[] data) {
        byte[] head = line.getBytes(StandardCharsets.US_ASCII);
        ByteBuf request = Unpooled.directBuffer(head.length + (data == null ? 0 : data.length + 2));
        request.writeBytes(head);
        if (data != null) {
            request.writeBytes(data).writeByte('\r').writeByte('\n');
        }
        return request;
    }

    @Setup
    public void setUp() {
        ChannelHandlerContext decoderContext = Contexts.of(decoder);
        decoding = (in, out) -> decoder.decodeFrame(decoderContext, in, out);
        String key = new String(BinaryCodecBenchmark.KEY, StandardCharsets.US_ASCII);
        getLine = request("get " + key + "\r\n", null);
        setLines = request("set " + key + " 0 0 " + BinaryCodecBenchmark.VALUE.length + "\r\n",
                BinaryCodecBenchmark.VALUE);
        out = Unpooled.directBuffer(256);
        TextReply getHit = new TextReply.Values(List.of(new TextReply.Value(BinaryCodecBenchmark.KEY, 0,
                BinaryCodecBenchmark.VALUE, 1234, false)));
        getHitEncoding = buffer -> encoder.encode(getHit, buffer);
        storedEncoding = buffer -> encoder.encode(TextReply.STORED, buffer);
    }

    @TearDown
    public void tearDown() {
        getLine.release();
        setLines.release();
        out.release();
    }

    @Benchmark
    public Object decodeGet() {
        return decodeOne(decoding, getLine);
    }

    @Benchmark
    public Object decodeSet() {
        return decodeOne(decoding, setLines);
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
