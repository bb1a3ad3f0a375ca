/**
 * The remote memcached backend: a pool of real memcached servers, keys placed by ketama consistent hashing,
 * spoken to in the binary protocol over pipelined Netty connections on the gateway's event loops.
 */
package kvgate.backend.memcached;
