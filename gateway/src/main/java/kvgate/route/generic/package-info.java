/**
 * The generic layer: what a backend instance lacks natively (listing a namespace's keys, tags, the n-gram search
 * index) kept as ordinary records in that instance and updated with compare-and-swap, so every protocol works on
 * every backend.
 */
package kvgate.route.generic;
