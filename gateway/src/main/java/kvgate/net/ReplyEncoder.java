package kvgate.net;

import io.netty.buffer.ByteBuf;

/**
 * Writes one protocol's replies as bytes. The {@link ReplyQueue} encodes every reply of a read burst into one buffer,
 * so a pipelined burst leaves in one write of one buffer, not one buffer (and one pipeline pass) per reply.
 *
 * @param <R> the protocol's reply message
 */
public interface ReplyEncoder<R> {

    /** The bytes {@code reply} takes once encoded (an estimate is allowed: the buffer grows when it is short). */
    int size(R reply);

    /** Appends {@code reply} to {@code out}. */
    void encode(R reply, ByteBuf out);
}
