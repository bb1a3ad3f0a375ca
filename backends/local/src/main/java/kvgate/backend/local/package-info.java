/**
 * The embedded local store: items in H2 MVStore maps (one per namespace) in one file, or in memory, with writes
 * group-committed before they are acknowledged. Loaded as a PF4J plugin like any third-party backend.
 */
package kvgate.backend.local;
