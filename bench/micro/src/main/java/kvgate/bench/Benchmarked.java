package kvgate.bench;

import io.netty.buffer.ByteBuf;
import io.netty.util.ReferenceCountUtil;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import kvgate.net.Translation;
import kvgate.spi.Result;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What every benchmark shares: the JMH settings (time per operation in nanoseconds, short
 * runs that {@code bin/microbench} may lengthen) and the one call each kind of measurement makes, so that they
 * all measure the same thing the same way.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 3, time = 1)
public abstract class Benchmarked {
    /** A decoder's call as the pipeline makes it; its methods are reachable only from its own package. */
    public interface Decoding {
        void decode(ByteBuf in, List<Object> out);
    }

    /** An encoder's call as the reply queue makes it. */
    public interface Encoding {
        void encode(ByteBuf out);
    }

    private final List<Object> decoded = new ArrayList<>(1);

    /** Decodes the one frame {@code frame} holds, from its start, and releases what was decoded. */
    protected final Object decodeOne(Decoding decoding, ByteBuf frame) {
        frame.readerIndex(0);
        decoded.clear();
        decoding.decode(frame, decoded);
        Object frameDecoded = decoded.get(0);
        ReferenceCountUtil.release(frameDecoded);
        return frameDecoded;
    }

    /** Encodes one reply into {@code out}, emptied first. */
    protected static ByteBuf encodeOne(Encoding encoding, ByteBuf out) {
        out.clear();
        encoding.encode(out);
        return out;
    }

    /** Translates a request that the translator forwards, and the backend's {@code result} back into the answer. */
    @SuppressWarnings("unchecked")
    protected static <R> Translation.Answer<R> forwardAndAnswer(Translation<R> translation, Result result) {
        return ((Translation.Forward<R>) translation).reply().apply(result);
    }
}
