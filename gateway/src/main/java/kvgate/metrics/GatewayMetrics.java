package kvgate.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.core.instrument.distribution.HistogramSnapshot;
import io.micrometer.core.instrument.distribution.ValueAtPercentile;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import kvgate.spi.Operation;
import kvgate.spi.Status;

/**
 * The gateway's meters. Operation counters are created once for every verb and status, so counting on the data
 * path is one array lookup and one increment.
 *
 * <ul>
 *   <li>{@code kvgate.operations} (tags {@code verb}, {@code status}): clients' operations completed (not the
 *       gateway's own, {@link kvgate.dispatch.Dispatcher#dispatchOwn})</li>
 *   <li>{@code kvgate.connections.current} (tag {@code protocol}): open client connections</li>
 *   <li>{@code kvgate.connections.total} (tag {@code protocol}): client connections accepted since start</li>
 *   <li>{@code kvgate.connections.rejected} (tag {@code protocol}): connections closed for a connection limit</li>
 *   <li>{@code kvgate.refusals} (tags {@code protocol}, {@code cause}): requests or connections refused for what they
 *       sent (a line too long to read)</li>
 *   <li>{@code kvgate.commands} (tags {@code protocol}, {@code command}): protocol commands that are not
 *       operations</li>
 *   <li>{@code kvgate.datagrams.dropped} (tags {@code protocol}, {@code reason}): datagrams taken in but not
 *       answered (not decodable, no echo tag, oversized without one, duplicate, stale, beyond the window)</li>
 *   <li>{@code kvgate.datagrams.replayed} (tag {@code protocol}): resent requests answered from the reply cache</li>
 *   <li>{@code kvgate.datagrams.gaps_skipped} (tag {@code protocol}): missing requests given up on after the server
 *       timeout</li>
 *   <li>{@code kvgate.route.<counter>} (tag {@code route}): what route nodes count of themselves (see
 *       {@link kvgate.spi.RouteContext.Counters})</li>
 *   <li>{@code kvgate.eventloop.lag}: how long after its due time a probe on a network thread ran (see
 *       {@link kvgate.net.LoopLag}), with its median, p99 and p99.9 over the last minute</li>
 * </ul>
 */
public final class GatewayMetrics implements AutoCloseable {
    private final MeterRegistry registry;
    /** The JVM's collections, watched for the meters until {@link #close}; null without the JVM's meters. */
    private final JvmGcMetrics collections;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final Counter[][] operations = new Counter[Verb.values().length][Status.values().length];
    private final Map<String, Connections> connections = new ConcurrentHashMap<>();
    private final long startedAtMillis = System.currentTimeMillis();
    /** Route nodes' counters by {@code <route>:<counter>}, kept over reloads so that they only ever rise. */
    private final Map<String, LongAdder> routeCounters = new ConcurrentHashMap<>();
    private final Timer loopLag;
    /** The prefix of the gateway's own meters. */
    private static final String PREFIX = "kvgate.";
    private static final Pattern COUNTER_NAME = Pattern.compile("[a-z0-9_]{1,64}");

    private record Connections(AtomicLong current, Counter total, Counter rejected) {
    }

    public GatewayMetrics() {
        this(new SimpleMeterRegistry(), false);
    }

    public GatewayMetrics(MeterRegistry registry) {
        this(registry, false);
    }

    /**
     * The gateway's meters in a registry Prometheus can scrape ({@link #prometheus}), with the JVM's and the
     * process's own beside them (memory, collections, threads, CPU, uptime), as an operator expects of a server.
     */
    public static GatewayMetrics forPrometheus() {
        return new GatewayMetrics(new PrometheusMeterRegistry(PrometheusConfig.DEFAULT), true);
    }

    private GatewayMetrics(MeterRegistry registry, boolean jvm) {
        this.registry = registry;
        if (jvm) {
            new JvmMemoryMetrics().bindTo(registry);
            new JvmThreadMetrics().bindTo(registry);
            new ProcessorMetrics().bindTo(registry);
            new UptimeMetrics().bindTo(registry);
            collections = new JvmGcMetrics();
            collections.bindTo(registry);
        } else {
            collections = null;
        }
        for (Verb verb : Verb.values()) {
            for (Status status : Status.values()) {
                operations[verb.ordinal()][status.ordinal()] = Counter.builder("kvgate.operations")
                        .description("operations completed")
                        .tag("verb", verb.tag())
                        .tag("status", status.name().toLowerCase(Locale.ROOT))
                        .register(registry);
            }
        }
        // Percentiles over a minute, as the tail of a thread's lag is what a client's latency tail takes from it.
        loopLag = Timer.builder(PREFIX + "eventloop.lag")
                .description("how long after its due time work on a network thread ran")
                .publishPercentiles(0.5, 0.99, 0.999)
                .distributionStatisticExpiry(Duration.ofMinutes(1))
                .distributionStatisticBufferLength(2)
                .register(registry);
    }

    /** Where the network threads' lag is recorded. */
    public Timer loopLag() {
        return loopLag;
    }

    /** The network threads' lag over the last minute, in microseconds: its median, p99, p99.9 and longest. */
    public LagSummary loopLagSummary() {
        HistogramSnapshot snapshot = loopLag.takeSnapshot();
        double[] at = new double[3];
        for (ValueAtPercentile value : snapshot.percentileValues()) {
            int index = value.percentile() == 0.5 ? 0 : value.percentile() == 0.99 ? 1 : 2;
            at[index] = value.value(TimeUnit.MICROSECONDS);
        }
        return new LagSummary((long) at[0], (long) at[1], (long) at[2], (long) snapshot.max(TimeUnit.MICROSECONDS));
    }

    /** A summary of {@link #loopLag()}, in microseconds. */
    public record LagSummary(long p50, long p99, long p999, long max) {
    }

    public long startedAtMillis() {
        return startedAtMillis;
    }

    public void completed(Operation operation, Status status) {
        operations[Verb.of(operation).ordinal()][status.ordinal()].increment();
    }

    /** Operations of {@code verb} that completed with {@code status}. */
    public long count(Verb verb, Status status) {
        return (long) operations[verb.ordinal()][status.ordinal()].count();
    }

    /** Operations of {@code verb}, whatever their outcome. */
    public long count(Verb verb) {
        long sum = 0;
        for (Counter counter : operations[verb.ordinal()]) {
            sum += (long) counter.count();
        }
        return sum;
    }

    public void connectionOpened(String protocol) {
        Connections c = connections(protocol);
        c.current().incrementAndGet();
        c.total().increment();
    }

    public void connectionClosed(String protocol) {
        connections(protocol).current().decrementAndGet();
    }

    public void connectionRejected(String protocol) {
        connections(protocol).rejected().increment();
    }

    /**
     * The counter of requests or connections of {@code protocol} refused for {@code cause} (a line too long to read,
     * say), created on first use.
     */
    public Counter refusals(String protocol, String cause) {
        return Counter.builder("kvgate.refusals").tag("protocol", protocol).tag("cause", cause).register(registry);
    }

    /** A counter of protocol commands that are not operations (noop, stats), created on first use. */
    public Counter command(String protocol, String command) {
        return Counter.builder("kvgate.commands").tag("protocol", protocol).tag("command", command)
                .register(registry);
    }

    public void datagramDropped(String protocol, String reason) {
        datagrams("kvgate.datagrams.dropped", protocol, reason).increment();
    }

    public void datagramReplayed(String protocol) {
        datagrams("kvgate.datagrams.replayed", protocol, null).increment();
    }

    public void datagramGapSkipped(String protocol) {
        datagrams("kvgate.datagrams.gaps_skipped", protocol, null).increment();
    }

    /** Datagrams of {@code protocol} dropped for {@code reason}. */
    public long datagramsDropped(String protocol, String reason) {
        return (long) datagrams("kvgate.datagrams.dropped", protocol, reason).count();
    }

    public long datagramsReplayed(String protocol) {
        return (long) datagrams("kvgate.datagrams.replayed", protocol, null).count();
    }

    public long datagramGapsSkipped(String protocol) {
        return (long) datagrams("kvgate.datagrams.gaps_skipped", protocol, null).count();
    }

    private Counter datagrams(String name, String protocol, String reason) {
        Counter.Builder builder = Counter.builder(name).tag("protocol", protocol);
        if (reason != null) {
            builder.tag("reason", reason);
        }
        return builder.register(registry);
    }

    /** Open connections of one protocol. */
    public long currentConnections(String protocol) {
        return connections(protocol).current().get();
    }

    /** Connections of one protocol accepted since start. */
    public long totalConnections(String protocol) {
        return (long) connections(protocol).total().count();
    }

    /** Open connections over all protocols. */
    public long currentConnections() {
        return connections.values().stream().mapToLong(c -> c.current().get()).sum();
    }

    /** Connections accepted since start over all protocols. */
    public long totalConnections() {
        return connections.values().stream().mapToLong(c -> (long) c.total().count()).sum();
    }

    private Connections connections(String protocol) {
        return connections.computeIfAbsent(protocol, p -> {
            AtomicLong current = new AtomicLong();
            Gauge.builder("kvgate.connections.current", current, AtomicLong::get).tag("protocol", p)
                    .register(registry);
            return new Connections(current,
                    Counter.builder("kvgate.connections.total").tag("protocol", p).register(registry),
                    Counter.builder("kvgate.connections.rejected").tag("protocol", p).register(registry));
        });
    }

    /**
     * Route node {@code route}'s counter {@code name}, registered as {@code kvgate.route.<name>} tagged
     * {@code route}; the same counter every time it is asked for.
     *
     * @throws IllegalArgumentException when the name is not lower case, digits and underscores
     */
    public LongAdder routeCounter(String route, String name) {
        if (!COUNTER_NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("a route counter's name is 1 to 64 of a-z 0-9 _, not '" + name + "'");
        }
        return routeCounters.computeIfAbsent(route + ":" + name, ignored -> {
            LongAdder counter = new LongAdder();
            FunctionCounter.builder("kvgate.route." + name, counter, LongAdder::sum).tag("route", route)
                    .register(registry);
            return counter;
        });
    }

    /** A gauge of the gateway's own (its name begins with {@code kvgate.}), read whenever it is measured. */
    public void gauge(String name, String description, Supplier<Number> value) {
        if (!name.startsWith(PREFIX)) {
            throw new IllegalArgumentException("a gauge of the gateway's is named kvgate.*, not " + name);
        }
        Gauge.builder(name, value).description(description).register(registry);
    }

    /**
     * Every meter of the gateway's own ({@code kvgate.*}) with its current value, by its name and tags
     * ({@code kvgate.operations{status=ok,verb=get}}), sorted; a counter's count, a gauge's value.
     */
    public Map<String, String> meters() {
        Map<String, String> values = new TreeMap<>();
        for (Meter meter : registry.getMeters()) {
            if (!meter.getId().getName().startsWith(PREFIX)) {
                continue; // the JVM's and the process's figures are for the scrape
            }
            StringBuilder name = new StringBuilder(meter.getId().getName());
            List<Tag> tags = meter.getId().getTags();
            if (!tags.isEmpty()) {
                name.append('{');
                for (int i = 0; i < tags.size(); i++) {
                    name.append(i == 0 ? "" : ",").append(tags.get(i).getKey()).append('=')
                            .append(tags.get(i).getValue());
                }
                name.append('}');
            }
            double value = meter.measure().iterator().next().getValue();
            values.put(name.toString(), value == Math.rint(value) && !Double.isInfinite(value)
                    ? Long.toString((long) value) : Double.toString(value));
        }
        return values;
    }

    /** The registry to scrape, or null when the meters are not kept for Prometheus. */
    public PrometheusMeterRegistry prometheus() {
        return registry instanceof PrometheusMeterRegistry prometheus ? prometheus : null;
    }

    /** Stops watching the JVM's collections; once, however often it is called. */
    @Override
    public void close() {
        if (collections != null && closed.compareAndSet(false, true)) {
            collections.close();
        }
    }

    /** Every route counter's value by {@code <route>:<counter>}, sorted. */
    public Map<String, Long> routeCounters() {
        Map<String, Long> values = new TreeMap<>();
        routeCounters.forEach((key, counter) -> values.put(key, counter.sum()));
        return values;
    }
}
