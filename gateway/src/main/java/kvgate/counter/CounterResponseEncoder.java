package kvgate.counter;

import io.netty.buffer.ByteBuf;
import kvgate.net.ReplyEncoder;

/** Writes {@link CounterResponse}s: a 12-byte header (0x91, opcode, status, 0, body length, opaque), then the body. */
public final class CounterResponseEncoder implements ReplyEncoder<CounterResponse> {
    static final int RESPONSE_MAGIC = 0x91;

    @Override
    public int size(CounterResponse response) {
        return CounterFrameDecoder.HEADER_LENGTH + response.body().length;
    }

    @Override
    public void encode(CounterResponse response, ByteBuf out) {
        out.writeByte(RESPONSE_MAGIC)
                .writeByte(response.opcode())
                .writeByte(response.status().code())
                .writeByte(0)
                .writeInt(response.body().length)
                .writeInt(response.opaque())
                .writeBytes(response.body());
    }
}
