package kvgate.counter;

/** What the counter frame decoder produces: a request, or a frame with bad magic to be answered in its place. */
public sealed interface CounterFrame permits CounterFrame.Request, CounterFrame.BadMagic {
    int opcode();

    int opaque();

    /**
     * A request with its body, copied out of the network buffer.
     *
     * @param body the body, at most {@link CounterFrameDecoder#MAX_USEFUL_BODY} bytes: the rest of a longer body is
     *     skipped, since no request reads further
     */
    record Request(int opcode, int opaque, byte[] body) implements CounterFrame {
    }

    /** A frame whose magic is not 0x90; its body was skipped by the declared length. */
    record BadMagic(int opcode, int opaque) implements CounterFrame {
    }
}
