/**
 * MPDB, MsgPack maps over UDP: the datagram codec, each client's echo-ordered window (reliable delivery), the
 * translator between MPDB's collections and node buckets and the operation stream, and the listener's handler.
 */
package kvgate.mpdb;
