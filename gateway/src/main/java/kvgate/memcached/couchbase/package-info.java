/**
 * Couchbase's additions to the memcached binary protocol: SASL authentication, the cluster map, the sub-document
 * commands (the {@code Subdoc} classes: paths in JSON documents, read and changed here and written back with
 * compare-and-swap), and the management (HTTP) port a Couchbase SDK's {@code waitUntilReady} asks about a bucket.
 */
package kvgate.memcached.couchbase;
