/**
 * Start-up and shutdown, the listeners and their channel pipelines, and what every protocol's connections share:
 * replies in request order with backpressure, connection limits and idle timeouts.
 */
package kvgate.net;
