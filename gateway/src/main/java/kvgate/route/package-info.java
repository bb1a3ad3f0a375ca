/**
 * Routing: the route tree built from the configuration ({@code backends.<name>}, {@code routes.<name>},
 * {@code route}), the gateway's own nodes, which map each operation to backend instances by key prefix or namespace,
 * fail over, or send to several, and its leaf, a backend instance ({@link kvgate.route.BackendRoute}).
 */
package kvgate.route;
