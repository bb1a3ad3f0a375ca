package kvgate.load;

import io.netty.buffer.ByteBuf;

/**
 * One TCP connection's side of a protocol: writes requests and judges their replies, which come in request order.
 * Each request is identified by a kind (the conversation's own numbering) and a tag it carries where the protocol
 * has one (an opaque), so that a reply can be checked against the request it must answer.
 */
interface Conversation {
    /** Requests sent once, one at a time, before any other (a HELLO, a manifest); each must succeed. */
    default int preambleSteps() {
        return 0;
    }

    /** Writes step {@code step} of the preamble; returns its kind. */
    default int writePreamble(ByteBuf out, int step, int tag) {
        throw new IllegalStateException("no preamble");
    }

    /** Writes a store of {@code key}; returns its kind. */
    int writeFill(ByteBuf out, long key, int tag);

    /** Writes the next request of the mix; returns its kind. */
    int writeNext(ByteBuf out, int tag);

    /**
     * Reads the reply to the request of {@code kind} and {@code tag} from {@code in}; null when it has not all
     * come.
     */
    Outcome read(ByteBuf in, int kind, int tag);

    /** What was wrong with the last reply judged {@link Outcome#ERROR} or {@link Outcome#BROKEN}. */
    String problem();
}
