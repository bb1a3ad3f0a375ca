package kvgate.load.bench;

/**
 * Part 4: a fresh server filled with the same items, and its resident size.
 *
 * @param server memcached or gateway
 * @param items items stored
 * @param rssEmptyKb VmRSS before, in KiB
 * @param rssFilledKb VmRSS after
 * @param heapUsedKb a JVM's heap in use after a full collection; null for memcached or when unknown
 * @param rssAfterGcKb VmRSS after that collection; null likewise
 */
public record MemoryRow(String server, long items, long rssEmptyKb, long rssFilledKb, Long heapUsedKb,
                        Long rssAfterGcKb) {
}
