/**
 * The counter protocol (the yrmcds counter extension): its frame codec, the translator to counter operations and the
 * per-connection ledger of acquired resources. The counters themselves live in a counter store.
 */
package kvgate.counter;
