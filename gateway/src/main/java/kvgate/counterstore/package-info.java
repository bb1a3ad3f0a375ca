/**
 * The built-in counter store: counters in this process's memory, as the reference server keeps them, for a gateway
 * whose {@code counter.store} is {@code memory}.
 */
package kvgate.counterstore;
