package kvgate.load.bench;

import java.util.List;

/**
 * Part 3: one open-loop run at half of a gateway's peak, of that gateway or of memcached beside it.
 *
 * @param reference the gateway whose peak set the rate
 * @param target the reference or memcached
 * @param rate requests a second asked
 * @param crawls how many of memcached's LRU crawls started about the run's measured period; null when unknown
 */
public record HalfRow(String reference, String target, long rate, int connections, int depth, int round,
                      LoadFigures figures, Long crawls) {
    /** The gateways whose peaks set part 3's rates, in the order they run and are reported. */
    public static final List<String> REFERENCES = List.of("gateway/local", "gateway-proxy");

    /** A p99.9 of this many µs or more is a stall. */
    public static final long STALL_US = 20_000;

    /** Whether either run of a round with this p99.9 had a stall: 20 ms or more. */
    public static boolean stalled(long p999Us) {
        return p999Us >= STALL_US;
    }
}
