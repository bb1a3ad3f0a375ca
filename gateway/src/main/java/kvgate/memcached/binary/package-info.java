/**
 * The memcached binary protocol's frames: bytes to {@link kvgate.memcached.binary.BinaryFrame} and
 * {@link kvgate.memcached.binary.BinaryResponse} to bytes, the opcodes with the request shape each takes, the status
 * codes and the flexible framing extras. Nothing here knows of operations or backends.
 */
package kvgate.memcached.binary;
