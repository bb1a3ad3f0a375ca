/**
 * A load generator for every protocol the gateway speaks: many connections (or UDP sockets for MPDB), requests
 * pipelined to a given depth, closed loop or at a fixed rate, every reply checked, latency recorded in an
 * HdrHistogram and reported as one JSON line.
 */
package kvgate.load;
