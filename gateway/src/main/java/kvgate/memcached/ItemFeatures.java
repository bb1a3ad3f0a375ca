package kvgate.memcached;

import java.util.function.BooleanSupplier;

/**
 * What every backend of the route tree in force keeps of an item beyond its value, flags and CAS: the meta commands'
 * flags that need it are refused, as memcached refuses a flag it does not know, where one backend does not. Each is
 * asked at the request that needs it, of the tree in force then: a reload may bring or take such a backend.
 *
 * @param readsTellExpiry whether reads tell an item's expiry ({@code t} of {@code mg}, {@code me}'s expiry);
 *     memcached's binary reads do not
 * @param keepsLeases whether items keep their {@link kvgate.spi.Lease} ({@code N} and {@code R} of {@code mg},
 *     {@code I} of {@code md} and {@code ms})
 * @param arithmeticSetsExpiry whether arithmetic sets and tells a counter's expiry ({@code T} and {@code t} of
 *     {@code ma})
 * @param takesChosenCas whether a write may choose its item's CAS ({@code E})
 */
record ItemFeatures(BooleanSupplier readsTellExpiry, BooleanSupplier keepsLeases,
                    BooleanSupplier arithmeticSetsExpiry, BooleanSupplier takesChosenCas) {
}
