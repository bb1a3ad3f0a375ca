package kvgate.plugin.shadow;

import java.nio.ByteBuffer;
import kvgate.spi.Namespace;
import kvgate.spi.Operation;

/**
 * An item's address, namespace and key, as a map key: operations address the same item only when both are equal.
 * The key is wrapped, not copied ({@link ByteBuffer} compares and hashes the bytes), as an operation's arrays are
 * never modified.
 */
record ItemKey(Namespace namespace, ByteBuffer key) {

    /** The item {@code operation} reads or changes, or null for one on a whole namespace. */
    static ItemKey of(Operation operation) {
        byte[] key = MirrorPolicy.keyOf(operation);
        return key == null ? null : new ItemKey(operation.namespace(), ByteBuffer.wrap(key));
    }
}
