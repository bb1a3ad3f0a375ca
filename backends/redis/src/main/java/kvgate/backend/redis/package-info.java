/**
 * The Redis backend: a standalone Redis or a Redis Cluster through Lettuce, every read-modify-write of an item a
 * server-side script, namespaces listed by sharded index sets, so that many stateless gateways share one store.
 */
package kvgate.backend.redis;
