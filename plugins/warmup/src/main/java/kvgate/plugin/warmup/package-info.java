/**
 * The warm-up route node, a PF4J plugin: moves items from an old store to a new one under live traffic, filling the
 * new store on reads, keeping the old one from serving stale values after writes, and copying the rest in the
 * background until the migration ends.
 */
package kvgate.plugin.warmup;
