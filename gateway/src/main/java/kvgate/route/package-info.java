/**
 * Routing: the route tree built from the configuration ({@code backends.<name>}, {@code routes.<name>},
 * {@code route}), and the gateway's own nodes, which map each operation to backend instances by key prefix or
 * namespace, fail over, or send to several.
 */
package kvgate.route;
