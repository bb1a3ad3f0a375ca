package kvgate.load.bench;

/**
 * What one kvgate-load run measured, from its JSON line: throughput, latencies in µs, errors, and CPU.
 *
 * @param unsent open loop: requests due that never left, every pipeline being full
 * @param lateMaxUs open loop: the longest the tool took to get to a batch after its intended time
 * @param sentP99Us the p99 counted from each request's actual send
 */
public record LoadFigures(long opsPerSecond, long p50Us, long p99Us, long p999Us, long errors, long unsent,
                          long lateMaxUs, long sentP99Us, long fromMillis, double seconds, int port, int round,
                          Cpu cpu) {
}
