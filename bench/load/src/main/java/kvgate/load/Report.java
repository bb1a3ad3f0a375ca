package kvgate.load;

import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;
import org.HdrHistogram.Histogram;

/**
 * The figures of one run (or of a fill): what was answered in the measured period, the errors, latency
 * percentiles in microseconds, and the generator's own CPU use in percent of one core.
 *
 * @param port the target's port (0 on a Unix socket)
 * @param socket the target's Unix domain socket; empty over TCP
 * @param mode {@code closed} (as fast as replies come), {@code open} (fixed rate) or {@code fill}
 * @param batch requests sent together at each intended time of an open-loop run (1 otherwise)
 * @param fromMillis when the measured period began, in milliseconds since the Unix epoch (it lasted
 *     {@code seconds}), so that what else happened on the machine then can be told
 * @param ops requests answered as expected (stores, hits and misses)
 * @param misses reads that found nothing (not errors)
 * @param errors replies that are not a success or are wrong, unreadable replies, requests lost to a timeout or a
 *     closed connection: over the whole run, the fill and the warm-up included
 * @param unsent requests a fixed rate made due that never left, for lack of room in the pipelines (open loop)
 * @param sentP99 the p99 of the latencies counted from each request's actual send, not its intended time (the same
 *     as {@code p99} in a closed loop): without the generator's own lateness, or a full pipeline's wait, in
 *     microseconds
 * @param sentP999 the same at p99.9
 * @param lateMax open loop: the longest the generator took to get to a batch after its intended time, in
 *     microseconds; a latency much longer than this was not the generator's pause
 * @param catchUp open loop: how long after the warm-up the generator waited, in milliseconds, to be back within
 *     10 ms of its schedule before the measured period began (it can fall behind while it is cold)
 * @param watchedCpu CPU use of the processes watched, in their order, percent of one core (-1: unknown)
 * @param machineCpu CPU the machine's processes used (user, system, steal), percent of one core (-1: unknown)
 * @param interruptCpu CPU the machine spent on interrupts (loopback networking), percent of one core
 */
public record Report(String protocol, int port, String socket, String mode, String transport, int connections,
        int depth, int threads, double rate, int batch, long fromMillis, double seconds, long ops, long reads,
        long misses, long errors, long timeouts, long unsent, double p50, double p99, double p999, double max,
        double mean, double sentP99, double sentP999, double lateMax, double catchUp, double cpuPercent,
        List<Double> watchedCpu, double machineCpu, double interruptCpu, List<String> problems) {

    static Report of(LoadOptions options, String mode, String transport, long fromMillis, double seconds, long ops,
            long reads, long misses, long errors, long timeouts, long unsent, Histogram latencies, Histogram fromSend,
            long lateNanos, long catchUpNanos, double cpuPercent, List<Double> watchedCpu, double machineCpu,
            double interruptCpu, List<String> problems) {
        return new Report(options.protocol().label(), options.port(), options.socket(), mode, transport,
                options.connections(), options.depth(), options.threads(), options.rate(), options.batch(),
                fromMillis, seconds, ops, reads, misses, errors, timeouts, unsent,
                micros(latencies.getValueAtPercentile(50)), micros(latencies.getValueAtPercentile(99)),
                micros(latencies.getValueAtPercentile(99.9)), micros(latencies.getMaxValue()),
                latencies.getTotalCount() == 0 ? 0 : latencies.getMean() / 1000,
                micros(fromSend.getValueAtPercentile(99)), micros(fromSend.getValueAtPercentile(99.9)),
                micros(lateNanos), catchUpNanos / 1e6, cpuPercent, List.copyOf(watchedCpu), machineCpu, interruptCpu,
                List.copyOf(problems));
    }

    private static double micros(long nanos) {
        return nanos / 1000.0;
    }

    public double opsPerSecond() {
        return seconds > 0 ? ops / seconds : 0;
    }

    /** One line of JSON, the figures only. */
    public String json() {
        return String.format(Locale.ROOT, "{\"protocol\":\"%s\",\"port\":%d,\"socket\":\"%s\",\"mode\":\"%s\","
                + "\"transport\":\"%s\",\"connections\":%d,\"depth\":%d,\"threads\":%d,\"rate\":%.0f,\"batch\":%d,"
                + "\"from_ms\":%d,\"seconds\":%.3f,"
                + "\"ops\":%d,\"ops_per_s\":%.0f,\"reads\":%d,\"misses\":%d,\"errors\":%d,\"timeouts\":%d,"
                + "\"unsent\":%d,\"p50_us\":%.1f,\"p99_us\":%.1f,\"p999_us\":%.1f,\"max_us\":%.1f,\"mean_us\":%.1f,"
                + "\"sent_p99_us\":%.1f,\"sent_p999_us\":%.1f,"
                + "\"late_max_us\":%.1f,\"catch_up_ms\":%.1f,\"cpu_percent\":%.1f,\"watched_cpu\":[%s],"
                + "\"machine_cpu\":%.1f,\"interrupt_cpu\":%.1f}",
                // A path may hold what JSON escapes.
                protocol, port, socket.replace("\\", "\\\\").replace("\"", "\\\""), mode, transport,
                connections, depth, threads, rate, batch, fromMillis, seconds,
                ops, opsPerSecond(), reads, misses, errors, timeouts, unsent, p50, p99, p999, max, mean, sentP99,
                sentP999, lateMax, catchUp, cpuPercent,
                watchedCpu.stream().map(cpu -> String.format(Locale.ROOT, "%.1f", cpu))
                        .collect(Collectors.joining(",")),
                machineCpu, interruptCpu);
    }

    /** A few lines for a person. */
    public String summary() {
        StringBuilder text = new StringBuilder(String.format(Locale.ROOT,
                "kvgate-load %s, %s loop%s, %d connections x depth %d, %d thread(s), %s: %.1f s%n"
                        + "  %d ops, %.0f ops/s; %d reads (%d misses); %d errors (%d timeouts)%s%n"
                        + "  latency us: p50 %.1f  p99 %.1f  p99.9 %.1f  max %.1f  mean %.1f%s; generator CPU %.0f%%%n",
                protocol, mode, mode.equals("open") ? String.format(Locale.ROOT, " at %.0f/s%s", rate,
                        batch > 1 ? " in batches of " + batch : "") : "",
                connections, depth, threads, transport, seconds, ops, opsPerSecond(), reads, misses, errors, timeouts,
                unsent > 0 ? "; " + unsent + " due but never sent" : "", p50, p99, p999, max, mean,
                mode.equals("open") ? String.format(Locale.ROOT, "; from each send: p99 %.1f  p99.9 %.1f; sends up "
                        + "to %.1f late, caught up %.0f ms after the warm-up", sentP99, sentP999, lateMax, catchUp)
                        : "",
                cpuPercent));
        for (String problem : problems) {
            text.append("  problem: ").append(problem).append(System.lineSeparator());
        }
        return text.toString();
    }
}
