package kvgate.load.bench;

/**
 * Part 1: one memaslap run against one target.
 *
 * @param target memcached, gateway/local, gateway-proxy, twemproxy or gateway/local-binary
 * @param clients memaslap's connections
 * @param batch gets sent together (memaslap --division; 1: one request at a time per connection)
 * @param protocol text or binary
 * @param round the round, from 1
 * @param opsPerSecond memaslap's throughput; null when the run failed (then every other figure is null)
 * @param getPercent gets among the requests, in percent
 * @param p50 the upper edge of the log2 bucket of memaslap's latency histogram that holds the median, as
 *     "≤N" µs ("-" when empty)
 * @param p99 the same at the 99th percentile
 * @param avg memaslap's average latency, µs, as it printed it
 * @param misses gets that missed
 * @param cpu the CPU over the run
 */
public record ToolRow(String target, int clients, int batch, String protocol, int round, Long opsPerSecond,
                      Double getPercent, String p50, String p99, String avg, Long misses, Cpu cpu) {

    public boolean failed() {
        return opsPerSecond == null;
    }
}
