package kvgate.memcached.binary;

/**
 * What the frame decoder produces for each request on the wire: a well-framed {@link BinaryRequest}, or a
 * {@link MalformedFrame} that must be answered with an error in its place in the reply order.
 */
public sealed interface BinaryFrame permits BinaryRequest, MalformedFrame {
    int opcode();

    int opaque();
}
