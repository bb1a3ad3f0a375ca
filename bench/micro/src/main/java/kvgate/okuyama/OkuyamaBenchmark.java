package kvgate.okuyama;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.Arrays;
import java.util.Base64;
import kvgate.bench.Benchmarked;
import kvgate.bench.Contexts;
import kvgate.net.RefusalLog;
import kvgate.net.Translation;
import kvgate.spi.Item;
import kvgate.spi.Namespace;
import kvgate.spi.Result;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The okuyama codec and translator on kvgate-load's lines: getValue and setValue of a 32-byte key with a 100-byte
 * value (Base64 on the wire), each decoded from a direct buffer, translated both ways, and the reply line encoded.
 */
public class OkuyamaBenchmark extends Benchmarked {
    private final OkuyamaLineDecoder decoder = new OkuyamaLineDecoder(4 << 20);
    private final OkuyamaReplyEncoder encoder = new OkuyamaReplyEncoder();
    private Decoding decoding;
    private Encoding hitEncoding;
    private ByteBuf getLine;
    private ByteBuf setLine;
    private ByteBuf out;
    private String hitReply;
    private OkuyamaTranslator translator;
    private OkuyamaLine.Text get;
    private OkuyamaLine.Text set;
    private Result hit;

    @Setup
    public void setUp() {
        byte[] value = new byte[100];
        Arrays.fill(value, (byte) 'v');
        Base64.Encoder base64 = Base64.getEncoder();
        String key = base64.encodeToString("load:000000000000000000000004242".getBytes(StandardCharsets.US_ASCII));
        String encodedValue = base64.encodeToString(value);
        get = new OkuyamaLine.Text("2," + key);
        set = new OkuyamaLine.Text("1," + key + ",(B),0," + encodedValue);
        getLine = line(get.text());
        setLine = line(set.text());
        hitReply = "2,true," + encodedValue;
        ChannelHandlerContext decoderContext = Contexts.of(decoder);
        decoding = (in, out) -> decoder.decodeFrame(decoderContext, in, out);
        hitEncoding = buffer -> encoder.encode(hitReply, buffer);
        out = Unpooled.directBuffer(256);
        Namespace namespace = new Namespace("default");
        translator = new OkuyamaTranslator(namespace, Clock.systemUTC(), new OkuyamaTranslator.Limits(1 << 20,
                1 << 20, 1000), new OkuyamaTransactions(namespace, false, 0, Clock.systemUTC(),
                new RefusalLog("unused", () -> { })), null);
        hit = new Result.Value(new Item(value, 0, 1234, Item.NEVER));
    }

    private static ByteBuf line(String text) {
        ByteBuf line = Unpooled.directBuffer(text.length() + 1);
        line.writeCharSequence(text, StandardCharsets.ISO_8859_1);
        return line.writeByte('\n');
    }

    @TearDown
    public void tearDown() {
        getLine.release();
        setLine.release();
        out.release();
    }

    @Benchmark
    public Object decodeGet() {
        return decodeOne(decoding, getLine);
    }

    @Benchmark
    public Object decodeSet() {
        return decodeOne(decoding, setLine);
    }

    @Benchmark
    public ByteBuf encodeGetHit() {
        return encodeOne(hitEncoding, out);
    }

    @Benchmark
    public Translation.Answer<String> translateGetHit() {
        return forwardAndAnswer(translator.translate(get), hit);
    }

    @Benchmark
    public Translation.Answer<String> translateSet() {
        return forwardAndAnswer(translator.translate(set), new Result.Stored(1235));
    }
}
