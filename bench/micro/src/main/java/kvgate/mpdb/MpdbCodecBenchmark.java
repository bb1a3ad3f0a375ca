package kvgate.mpdb;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Map;
import org.msgpack.core.MessageBufferPacker;
import org.msgpack.core.MessagePack;
import kvgate.bench.Benchmarked;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Setup;

/**
 * The MPDB codec on kvgate-load's datagrams: a GET and an INSERT of one 32-byte key with a 100-byte string value
 * decoded, and the reply to the GET (the pair found) and to the INSERT encoded.
 */
public class MpdbCodecBenchmark extends Benchmarked {
    private static final String KEY = "load:000000000000000000000004242";

    private byte[] get;
    private byte[] insert;
    private MpdbReply found;
    private MpdbReply inserted;

    @Setup
    public void setUp() throws IOException {
        byte[] value = new byte[100];
        Arrays.fill(value, (byte) 'v');
        try (MessageBufferPacker packer = MessagePack.newDefaultBufferPacker()) {
            packer.packMapHeader(4).packString("oper").packString("GET").packString("nodeid").packLong(1)
                    .packString("echo").packLong(4242).packString("keys").packArrayHeader(1).packString(KEY);
            get = packer.toByteArray();
            packer.clear();
            packer.packMapHeader(4).packString("oper").packString("INSERT").packString("nodeid").packLong(1)
                    .packString("echo").packLong(4243).packString("data").packMapHeader(1).packString(KEY)
                    .packString(new String(value, StandardCharsets.US_ASCII));
            insert = packer.toByteArray();
        }
        found = new MpdbReply(4242, 1L, Map.of("global." + KEY, MpdbValue.string(value)), "");
        inserted = new MpdbReply(4243, 1L, null, "");
    }

    @Benchmark
    public MpdbDatagram decodeGet() {
        return MpdbCodec.decode(get, false, 65507);
    }

    @Benchmark
    public MpdbDatagram decodeInsert() {
        return MpdbCodec.decode(insert, false, 65507);
    }

    @Benchmark
    public byte[] encodeFound() {
        return MpdbCodec.encode(found);
    }

    @Benchmark
    public byte[] encodeInserted() {
        return MpdbCodec.encode(inserted);
    }
}
