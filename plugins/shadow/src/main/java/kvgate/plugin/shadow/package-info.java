/**
 * The shadow route node: every operation is answered by the primary route, and a configurable share of them is also
 * sent to a shadow route whose answers are compared with the primary's and counted, never returned.
 */
package kvgate.plugin.shadow;
