package kvgate.counter;

/** One response of the counter protocol (magic 0x91). */
public record CounterResponse(int opcode, CounterStatus status, int opaque, byte[] body) {
    static final byte[] EMPTY = new byte[0];

    static CounterResponse success(int opcode, int opaque, byte[] body) {
        return new CounterResponse(opcode, CounterStatus.OK, opaque, body);
    }

    static CounterResponse error(int opcode, int opaque, CounterStatus status) {
        return new CounterResponse(opcode, status, opaque, status.message());
    }
}
