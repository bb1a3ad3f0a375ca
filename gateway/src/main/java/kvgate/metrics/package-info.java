/**
 * Meters shared by every protocol, on Micrometer: operations by verb and outcome, connections by protocol. Each
 * protocol's own statistics command reads its figures from here.
 */
package kvgate.metrics;
