/**
 * The composition root: start-up (plugins, the route tree, the dispatcher, then every enabled protocol), reload of the
 * route tree, shutdown, and the {@code main}. Every other package of the gateway stands below this one.
 */
package kvgate.app;
