/**
 * The counter protocol (the yrmcds counter extension): its frame codec, the translator to counter operations, the
 * per-connection ledger of acquired resources, and the in-memory counter store that is the default.
 */
package kvgate.counter;
