/**
 * The memcached protocol: the translator between binary frames and the operation stream, and the {@code stats} it
 * answers. The frame codec is in {@link kvgate.memcached.binary}, Couchbase's additions in
 * {@link kvgate.memcached.couchbase}.
 */
package kvgate.memcached;
