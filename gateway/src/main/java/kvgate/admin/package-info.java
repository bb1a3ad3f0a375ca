/**
 * The admin port: a line protocol for operators, answering {@code explain} (the path a request would take through
 * the route tree), {@code reload}, {@code routes}, {@code stats} and {@code version}. It listens on loopback unless
 * configured otherwise.
 */
package kvgate.admin;
