package kvgate.memcached.binary;

/**
 * A request the decoder could not accept. Its body has been (or is being) skipped; the connection survives unless
 * {@code closeConnection}, which is set when the framing itself can no longer be trusted.
 *
 * @param key the request's key when the decoder read it (for a value that was too large), else empty
 */
public record MalformedFrame(int opcode, int opaque, BinaryStatus status, String reason, boolean closeConnection,
                             byte[] key) implements BinaryFrame {
}
