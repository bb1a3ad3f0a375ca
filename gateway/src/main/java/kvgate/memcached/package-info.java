/**
 * The memcached binary protocol: the frame codec (bytes to {@link kvgate.memcached.binary.BinaryFrame} and
 * {@link kvgate.memcached.binary.BinaryResponse} to bytes), the translator between frames and the operation stream, and
 * the per-connection handler that keeps replies in request order; Couchbase's additions to it: SASL, the cluster
 * map, the sub-document commands (the {@code Subdoc} classes: paths in JSON documents, read and changed here and
 * written back with compare-and-swap), and the management (HTTP) port a Couchbase SDK's {@code waitUntilReady} asks
 * about a bucket.
 */
package kvgate.memcached;
