/**
 * The plugin contract of kvgate: the operations every protocol request becomes, the results they complete with,
 * and the two extension points PF4J plugins implement: {@link kvgate.spi.BackendFactory} for a store,
 * {@link kvgate.spi.RouteFactory} for a node of the route tree (which sees, may change, answer or count every
 * operation that reaches it). This is the only jar a third-party plugin
 * compiles against.
 */
package kvgate.spi;
