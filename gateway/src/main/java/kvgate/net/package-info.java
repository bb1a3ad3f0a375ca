/**
 * The connection core below every protocol: the listeners (TCP, Unix socket, UDP) and the network threads that run
 * them, and what every protocol's connections share: frames translated into operations and dispatched in bursts,
 * replies in request order with backpressure, connection limits and idle timeouts.
 */
package kvgate.net;
