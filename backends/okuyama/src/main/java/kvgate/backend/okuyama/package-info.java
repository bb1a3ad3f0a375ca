/**
 * The okuyama backend: a running okuyama cluster as a store, reached through its MasterNodes (pipelined connections
 * on the gateway's event loops, failover between masters) and listed through its DataNodes' exports.
 */
package kvgate.backend.okuyama;
