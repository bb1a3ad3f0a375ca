/**
 * The plugin contract of kvgate: the operations every protocol request becomes, the results they complete with,
 * and the extension points ({@link kvgate.spi.BackendFactory}, {@link kvgate.spi.RouteFactory},
 * {@link kvgate.spi.OperationFilter}) that PF4J plugins implement. This is the only jar a third-party plugin
 * compiles against.
 */
package kvgate.spi;
