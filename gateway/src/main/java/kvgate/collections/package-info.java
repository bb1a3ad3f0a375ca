/**
 * Couchbase collections: the manifest model and its validation, LEB128 collection ids, and the per-bucket manifests
 * kept in the backend and read by the data path from a cache of immutable snapshots.
 */
package kvgate.collections;
