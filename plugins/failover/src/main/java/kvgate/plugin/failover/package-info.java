/**
 * The failover route node, a plugin: each operation goes to the first child, and to the next when one fails or does
 * not answer within the node's own deadline.
 */
package kvgate.plugin.failover;
