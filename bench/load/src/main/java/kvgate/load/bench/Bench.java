package kvgate.load.bench;

import static kvgate.load.bench.BenchSettings.number;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * bin/bench: the gateway beside its peers (memcached, and twemproxy in front of the same memcached), on loopback,
 * under the same load for all of them, in six parts, each a table of results.md ({@link BenchReport}). This class
 * starts the servers and runs the parts in order, within the time budget; {@link Memaslap} and {@link Generator}
 * make the runs.
 */
public final class Bench {
    private static final Pattern TRANSPORT = Pattern.compile("network threads \\(([a-z_]+)\\)");

    private final BenchSettings settings;
    private final Path root;
    private final Tools tools;
    private final int cores;
    private final long startedAt = System.nanoTime();
    private final Path tmp;
    private final Path raw;
    private final Servers servers;
    private final Lineup lineup;
    private final Memaslap memaslap;
    private final Generator generator;
    private final Map<String, Target> targets = new LinkedHashMap<>();
    private final List<ToolRow> toolRows = new ArrayList<>();
    private final List<LoadRow> loadRows = new ArrayList<>();
    private final List<HalfRow> halfRows = new ArrayList<>();
    private final List<MemoryRow> memoryRows = new ArrayList<>();
    private final List<LoadRow> protocolRows = new ArrayList<>();
    private final List<LoadRow> tlsRows = new ArrayList<>();
    private final List<String> skipped = new ArrayList<>();
    private final String pinning;
    private Target memcached;
    private Target local;
    private Map<String, Integer> protocolPorts = Map.of();

    Bench(BenchSettings settings, Path root, Tools tools, int cores) throws IOException {
        this.settings = settings;
        this.root = root;
        this.tools = tools;
        this.cores = cores;
        this.tmp = Files.createTempDirectory("kvgate-bench");
        this.raw = Files.createDirectories(settings.out().resolve("raw"));
        try (Stream<Path> old = Files.list(raw)) {
            for (Path file : old.filter(file -> file.toString().endsWith(".txt") || file.toString().endsWith(".json"))
                    .toList()) {
                Files.delete(file);
            }
        }
        List<String> toolPin = List.of();
        List<String> serverPin = List.of();
        String laid = "none";
        if (settings.pin() && onPath("taskset") && cores > settings.toolThreads()) {
            toolPin = List.of("taskset", "-c", "0-" + (settings.toolThreads() - 1));
            serverPin = List.of("taskset", "-c", settings.toolThreads() + "-" + (cores - 1));
            laid = "load tool on cores 0-" + (settings.toolThreads() - 1) + ", servers on cores "
                    + settings.toolThreads() + "-" + (cores - 1);
        }
        this.pinning = laid;
        this.servers = new Servers(tmp, serverPin, toolPin);
        this.lineup = new Lineup(servers, tools, settings, tmp);
        Path config = tmp.resolve("memaslap.cfg");
        Files.writeString(config, Memaslap.distribution(settings));
        this.memaslap = new Memaslap(tools.memaslap(), config, raw, servers, settings, cores);
        this.generator = new Generator(tools.generator(), servers, settings, cores);
    }

    public static void main(String[] args) throws Exception {
        if (args.length == 1 && (args[0].equals("-h") || args[0].equals("--help"))) {
            System.out.print(usage());
            return;
        }
        if (args.length > 0) {
            System.err.println("bin/bench: no arguments are taken (settings are environment variables, see --help)");
            System.exit(2);
        }
        Path root = Path.of(System.getProperty("kvgate.root", "")).toAbsolutePath();
        int cores = Machine.cores();
        BenchSettings settings = BenchSettings.from(System.getenv(), root, cores);
        System.out.print(run(settings, root, Tools.find(root, settings), cores));
        say("raw output in " + settings.out().resolve("raw") + "; results in " + settings.out().resolve("results.md"));
    }

    /** A whole run: the servers started, the parts run, the report written to the out directory and returned. */
    static String run(BenchSettings settings, Path root, Tools tools, int cores) throws Exception {
        Bench bench = new Bench(settings, root, tools, cores);
        try {
            Results results = bench.run();
            return BenchReport.write(results, settings.out());
        } finally {
            bench.close();
        }
    }

    static String usage() throws IOException {
        try (InputStream in = Bench.class.getResourceAsStream("/kvgate/load/bench/usage.txt")) {
            return in == null ? "bin/bench: see docs/benchmarks.md\n" : new String(in.readAllBytes(),
                    StandardCharsets.UTF_8);
        }
    }

    static void say(String message) {
        System.err.println("bench: " + message);
    }

    private static boolean onPath(String name) {
        return Tools.locate(name) != null;
    }

    /** Seconds since the start. */
    private long elapsed() {
        return (System.nanoTime() - startedAt) / 1_000_000_000L;
    }

    /** Whether a run of {@code seconds} begun now would end past the budget. */
    private boolean overBudget(double seconds) {
        return elapsed() + seconds > settings.budgetSeconds();
    }

    Results run() throws Exception {
        String loadStart = Machine.loadAverage();
        String started = ZonedDateTime.now(ZoneOffset.UTC).format(DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm"))
                + " UTC";
        startServers();
        memaslapLevels(); // part 1
        loadLevels(); // part 2
        halfOfPeak(); // part 3
        memory(); // part 4
        otherProtocols(); // part 5
        tls(); // part 6
        String memaslapVersion = Machine.firstLine(Machine.outputAnyExit(tools.memaslap().toString(), "-V"));
        Setup setup = new Setup(started, cores, Machine.cpuModel(), Machine.memory(), Machine.output("uname", "-r"),
                loadStart, Machine.loadAverage(), Machine.output("git", "-C", root.toString(), "describe", "--always",
                "--dirty"), Machine.firstLine(Machine.output("java", "-version")), resolvedTransport(),
                Machine.firstLine(Machine.output(tools.memcached().toString(), "-V")),
                Machine.firstLine(Machine.output(tools.nutcracker().toString(), "-V")),
                memaslapVersion + " (" + tools.memaslap().getFileName() + ")", pinning, elapsed());
        return new Results(settings, setup, toolRows, loadRows, halfRows, memoryRows, protocolRows, tlsRows,
                skipped);
    }

    void close() {
        servers.close();
        try (Stream<Path> files = Files.walk(tmp)) {
            files.sorted((a, b) -> b.compareTo(a)).forEach(file -> file.toFile().delete());
        } catch (IOException e) {
            // left in the temporary directory
        }
    }

    // --- The servers --------------------------------------------------------------------------------------------

    private void startServers() throws IOException, InterruptedException {
        int cores = settings.serverCores(this.cores);
        int mcPort = servers.freePort();
        Servers.Started mc = lineup.memcached("memcached", mcPort, "binary");
        // The gateway on the local store serves every protocol, for part 5; nothing else uses the other listeners.
        int localPort = servers.freePort();
        int counterPort = servers.freePort();
        int okuyamaPort = servers.freePort();
        int mpdbPort = servers.freePort();
        Servers.Started gatewayLocal = lineup.gateway("gateway-local", localPort, settings.javaOpts(),
                "--counter.enable=true", "--counter.bind=127.0.0.1", "--counter.port=" + counterPort,
                "--okuyama.enable=true", "--okuyama.bind=127.0.0.1", "--okuyama.port=" + okuyamaPort,
                "--mpdb.enable=true", "--mpdb.bind=127.0.0.1", "--mpdb.port=" + mpdbPort);
        protocolPorts = Map.of("counter", counterPort, "okuyama", okuyamaPort, "okuyama-lists", okuyamaPort,
                "mpdb", mpdbPort, "collections", localPort);
        int proxyPort = servers.freePort();
        Servers.Started proxy = lineup.gateway("gateway-proxy", proxyPort, settings.javaOpts(), "--backend=memcached",
                "--memcached.servers=127.0.0.1:" + mcPort);
        int twPort = servers.freePort();
        Servers.Started twemproxy = lineup.twemproxy(twPort, servers.freePort(), mcPort);
        String protocol = settings.toolProtocol();
        memcached = new Target("memcached", mcPort, protocol, mc, null, cores);
        local = new Target("gateway/local", localPort, protocol, gatewayLocal, null, cores);
        targets.put("memcached", memcached);
        targets.put("gateway/local", local);
        targets.put("gateway-proxy", new Target("gateway-proxy", proxyPort, protocol, proxy, mc, cores));
        targets.put("twemproxy", new Target("twemproxy", twPort, "text", twemproxy, mc, 1));
        if (protocol.equals("text")) {
            // The same gateway over binary, so that part 1 compares its two paths in one run.
            targets.put("gateway/local-binary", new Target("gateway/local-binary", localPort, "binary",
                    gatewayLocal, null, cores));
        }
    }

    /** The names in the order of a round: reversed in even rounds, so that a drift weighs on each alike (ABBA). */
    static List<String> inOrder(int round, List<String> names) {
        List<String> order = new ArrayList<>(names);
        if (round % 2 == 0) {
            java.util.Collections.reverse(order);
        }
        return order;
    }

    // --- Part 1: memaslap ---------------------------------------------------------------------------------------

    private void memaslapLevels() throws Exception {
        // Each target is warmed up at the highest level with every batch size a run may use, in runs of 1 s with
        // new connections each: the JVM compiles the paths of batched requests only when it meets them, and
        // compiles its hot paths again when connections first close and open.
        int highest = 0;
        List<Integer> batches = new ArrayList<>(List.of(1));
        if (settings.autoBatch() > 1) {
            batches.add(settings.autoBatch());
        }
        for (String level : settings.levels()) {
            int[] numbers = BenchSettings.level(level);
            highest = Math.max(highest, numbers[0]);
            if (!batches.contains(numbers[1])) {
                batches.add(numbers[1]);
            }
        }
        if (settings.warmup() > 0) {
            for (Target target : targets.values()) {
                for (int batch : batches) {
                    say(target.name() + ": warm-up, " + highest + " clients, batch " + batch + ", "
                            + settings.warmup() + " runs of 1s");
                    for (int cycle = 1; cycle <= settings.warmup(); cycle++) {
                        memaslap.run(target, highest, batch, 1, "-warmup" + cycle, 0);
                    }
                }
            }
        }
        List<String> measured = new ArrayList<>();
        for (String level : settings.levels()) {
            int[] numbers = BenchSettings.level(level);
            measureLevel(numbers[0], numbers[1], measured);
            if (numbers[1] == 1 && settings.autoBatch() > 1 && toolBound(numbers[0], 1)) {
                say("the tool ran out of CPU at " + numbers[0] + " clients: again with gets batched by "
                        + settings.autoBatch());
                measureLevel(numbers[0], settings.autoBatch(), measured);
            }
        }
    }

    private void measureLevel(int clients, int batch, List<String> measured) throws Exception {
        if (measured.contains(clients + "x" + batch)) {
            return;
        }
        measured.add(clients + "x" + batch);
        int seconds = (int) settings.seconds();
        for (int round = 1; round <= settings.rounds(); round++) {
            for (String name : inOrder(round, new ArrayList<>(targets.keySet()))) {
                if (overBudget(settings.rewarm() + seconds + 3)) {
                    skipped.add(name + " at " + clients + " clients, batch " + batch + ", round " + round);
                    continue;
                }
                // Each measured run follows an unrecorded one of the same target at the same level: the JVM's
                // compiled code is then that of this workload, not of the target's other batch size or protocol
                // met since (the local gateway serves text and binary), which it would otherwise recompile during
                // the measured seconds (its JIT compiler took 15% of its core in such a run). memcached and
                // twemproxy get the same run, so each target starts its measurement as warm.
                if (settings.rewarm() > 0) {
                    memaslap.run(targets.get(name), clients, batch, settings.rewarm(), "-r" + round + "-rewarm", 0);
                }
                say(name + ": " + clients + " clients, batch " + batch + ", " + seconds + "s, round " + round);
                ToolRow row = memaslap.run(targets.get(name), clients, batch, seconds, "-r" + round, round);
                toolRows.add(row);
                say("  " + (row.failed() ? "failed, see " + raw : String.format(Locale.ROOT,
                        "%d ops/s, p99 %s µs, limit %s", row.opsPerSecond(), row.p99(), row.cpu().limit())));
            }
        }
    }

    /** Whether the tool ran out of CPU at this level at any target. */
    private boolean toolBound(int clients, int batch) {
        return toolRows.stream().anyMatch(row -> row.clients() == clients && row.batch() == batch && !row.failed()
                && (row.cpu().limit().equals("tool") || row.cpu().limit().equals("CPU,tool")));
    }

    // --- Part 2: kvgate-load, the binary protocol, pipelined ----------------------------------------------------

    /** One closed-loop kvgate-load run against a target over the binary protocol. */
    private LoadFigures load(Target target, String rawName, String... arguments) throws Exception {
        List<String> all = new ArrayList<>(List.of("--protocol=binary", "--port=" + target.port(),
                "--watch=" + Generator.watch(target)));
        all.addAll(Arrays.asList(arguments));
        List<JsonNode> runs = generator.run(raw.resolve(rawName), all.toArray(String[]::new));
        Servers.checkAlive(target.server(), target.backend());
        return runs.isEmpty() ? null : generator.figures(runs.get(runs.size() - 1), target.cores(),
                target.backend() != null);
    }

    private void loadLevels() throws Exception {
        for (String level : settings.loadLevels()) {
            int[] numbers = BenchSettings.level(level);
            levelRounds(List.of("memcached", "gateway/local", "gateway-proxy"), numbers[0], numbers[1], loadRows,
                    "load", "kvgate-load", List.of());
        }
    }

    /**
     * Every round of one level for these targets, the order alternating; rows to {@code rows}.
     *
     * @param more arguments beyond the level's (TLS: the CA)
     */
    private void levelRounds(List<String> names, int connections, int depth, List<LoadRow> rows, String rawPrefix,
                             String what, List<String> more) throws Exception {
        int seconds = (int) settings.seconds();
        for (int round = 1; round <= settings.rounds(); round++) {
            for (String name : inOrder(round, names)) {
                // Part 6 checked its whole time before it began, and runs whole.
                if (!rawPrefix.equals("tls") && overBudget(settings.warmup() + seconds + 3)) {
                    skipped.add(what + ": " + name + " at " + connections + " x " + depth + ", round " + round);
                    continue;
                }
                say(name + ": " + what + ", " + connections + " connections x depth " + depth + ", " + seconds
                        + "s after " + settings.warmup() + "s, round " + round);
                List<String> arguments = new ArrayList<>(List.of("--connections=" + connections, "--depth=" + depth,
                        "--seconds=" + seconds, "--warmup=" + settings.warmup()));
                arguments.addAll(more);
                LoadFigures figures = load(targets.get(name), rawPrefix + "-" + name.replace('/', '-') + "-c"
                        + connections + "-d" + depth + "-r" + round, arguments.toArray(String[]::new));
                if (figures == null) {
                    say("  kvgate-load failed, see " + raw);
                    continue;
                }
                rows.add(new LoadRow(name, connections, depth, round, figures));
                say("  " + summary(figures));
            }
        }
    }

    // --- Part 3: p99 at half of peak ----------------------------------------------------------------------------

    private void halfOfPeak() throws Exception {
        List<String> references = HalfRow.REFERENCES;
        for (String reference : references) {
            LoadRow peak = null;
            for (LoadRow row : loadRows) {
                if (row.target().equals(reference)
                        && (peak == null || row.figures().opsPerSecond() > peak.figures().opsPerSecond())) {
                    peak = row;
                }
            }
            if (peak == null || peak.figures().opsPerSecond() == 0) {
                continue;
            }
            long rate = peak.figures().opsPerSecond() / 2;
            // As many rounds as fit: a run takes its measured period, its warm-up and about a second of connecting,
            // filling and draining. Room is kept for part 4 (about 30 s), part 6 and, while the first gateway's
            // rounds run, for three rounds of the next: the first's p99 (the local store's) is the one read.
            double perRound = 2 * (settings.halfSeconds() + settings.halfRewarm() + 1);
            double reserve = (settings.memoryItems() > 0 ? 30 : 0) + tlsSeconds();
            if (reference.equals(references.get(0))) {
                reserve += settings.warmup() + 2 + 3 * perRound;
            }
            double left = settings.budgetSeconds() - elapsed() - settings.warmup() - 2 - reserve;
            int fits = (int) Math.min(Math.floor(left / perRound), settings.halfRounds());
            if (fits < 1) {
                skipped.add("p99 at half of " + reference + "'s peak");
                continue;
            }
            halfSeries(targets.get(reference), rate, peak.connections(), peak.depth(), fits);
        }
    }

    /** Part 6's time: two servers started, then both at every level, each run its warm-up, period and filling. */
    private double tlsSeconds() {
        return 20 + (settings.warmup() + settings.seconds() + 3) * 2 * settings.rounds() * settings.loadLevels()
                .size();
    }

    /** One gateway and memcached at {@code rate}, in rounds of alternating order, every run by one process. */
    private void halfSeries(Target reference, long rate, int connections, int depth, int rounds) throws Exception {
        say(reference.name() + " and memcached: kvgate-load at " + rate + " ops/s (half of " + reference.name()
                + "'s peak), " + connections + " connections x depth " + depth + " in batches of " + depth + ", "
                + rounds + " rounds of " + number(settings.halfSeconds()) + "s");
        Crawls crawls = Crawls.poll(memcached.port());
        List<JsonNode> runs;
        try {
            runs = generator.run(raw.resolve("half-" + reference.name().replace('/', '-')), "--protocol=binary",
                    "--port=" + reference.port() + "," + memcached.port(),
                    "--watch=" + Generator.watch(reference) + ";" + Generator.watch(memcached),
                    "--rounds=" + rounds, "--rewarm=" + number(settings.halfRewarm()), "--connections=" + connections,
                    "--depth=" + depth, "--batch=" + depth, "--rate=" + rate,
                    "--seconds=" + number(settings.halfSeconds()),
                    "--warmup=" + settings.warmup());
            Thread.sleep(300); // one reading of the crawls more, begun after the last run's measured period
        } finally {
            crawls.stop();
        }
        Servers.checkAlive(memcached.server(), reference.server());
        for (JsonNode run : runs) {
            Target target = run.path("port").asInt() == reference.port() ? reference : memcached;
            LoadFigures figures = generator.figures(run, target.cores(), target.backend() != null);
            halfRows.add(new HalfRow(reference.name(), target.name(), rate, connections, depth, figures.round(),
                    figures, crawls.during(figures.fromMillis(), figures.seconds())));
            say("  " + target.name() + ", round " + figures.round() + ": " + summary(figures));
        }
        if (runs.size() < 2 * rounds) {
            say("  kvgate-load gave " + runs.size() + " of " + 2 * rounds + " runs, see " + raw);
        }
    }

    // --- Part 4: memory -----------------------------------------------------------------------------------------

    private void memory() throws Exception {
        if (settings.memoryItems() <= 0) {
            return;
        }
        if (overBudget(30)) {
            skipped.add("the memory part");
            return;
        }
        int port = servers.freePort();
        Servers.Started mc = lineup.memcached("memcached-memory", port, "binary");
        memoryFill("memcached", mc, port);
        servers.stop(mc);
        port = servers.freePort();
        // The store's limit as memcached's -m is its: above the items. The default, half the heap, is below them.
        Servers.Started gateway = lineup.gateway("gateway-memory", port, settings.memoryJavaOpts(),
                "--local.memory_limit=240m");
        memoryFill("gateway", gateway, port);
        servers.stop(gateway);
    }

    private void memoryFill(String name, Servers.Started server, int port) throws Exception {
        long before = Rss.of(server.pid());
        say(name + ": storing " + settings.memoryItems() + " items of " + settings.valueSize() + " bytes");
        List<JsonNode> runs = generator.run(raw.resolve("memory-" + name), "--protocol=binary", "--port=" + port,
                "--fill=" + settings.memoryItems(), "--connections=8", "--depth=32", "--watch=" + server.pid());
        Servers.checkAlive(server);
        if (runs.isEmpty()) {
            say("  kvgate-load failed, see " + raw);
            return;
        }
        long after = Rss.of(server.pid());
        Long heap = null;
        Long settled = null;
        if (name.startsWith("gateway") && Rss.collect(server.pid())) {
            heap = Rss.heapUsed(server.pid());
            settled = Rss.of(server.pid());
        }
        memoryRows.add(new MemoryRow(name, runs.get(runs.size() - 1).path("ops").asLong(), before, after, heap,
                settled));
        say(String.format(Locale.ROOT, "  %d items, RSS %d KiB empty, %d KiB filled", memoryRows.get(
                memoryRows.size() - 1).items(), before, after));
    }

    // --- Part 5: the gateway's other protocols ------------------------------------------------------------------

    private void otherProtocols() throws Exception {
        for (String protocol : List.of("counter", "okuyama", "okuyama-lists", "mpdb", "collections")) {
            if (overBudget(settings.warmup() + settings.protocolSeconds() + 3)) {
                skipped.add(protocol + " on the gateway");
                continue;
            }
            protocolRow(protocol, protocol, protocolPorts.get(protocol), local.server(), true);
        }
        // A gateway with okuyama.transactions on, for okuyama's locks and for what transaction mode costs the
        // okuyama mix (each write first reads its key's lock).
        if (overBudget(3 * (settings.warmup() + settings.protocolSeconds() + 3) + 10)) {
            skipped.add("okuyama with transactions on the gateway");
            return;
        }
        int port = servers.freePort();
        int okuyamaPort = servers.freePort();
        Servers.Started gateway = lineup.gateway("gateway-transactions", port, settings.javaOpts(),
                "--okuyama.enable=true", "--okuyama.bind=127.0.0.1", "--okuyama.port=" + okuyamaPort,
                "--okuyama.transactions=true");
        // A new JVM: the okuyama mix once unrecorded, so that its rows compare with the local gateway's, warm by now.
        protocolRow("okuyama-transactions-warmup", "okuyama", okuyamaPort, gateway, false);
        protocolRow("okuyama-locks", "okuyama-locks", okuyamaPort, gateway, true);
        protocolRow("okuyama-transactions", "okuyama", okuyamaPort, gateway, true);
        servers.stop(gateway);
    }

    private void protocolRow(String label, String protocol, int port, Servers.Started server, boolean recorded)
            throws Exception {
        int[] level = BenchSettings.level(settings.protocolLevel());
        say("kvgate-load " + label + " (protocol " + protocol + "), " + level[0] + " connections x depth " + level[1]
                + ", " + number(settings.protocolSeconds()) + "s");
        List<JsonNode> runs = generator.run(raw.resolve("protocol-" + label), "--protocol=" + protocol,
                "--port=" + port, "--watch=" + server.pid(), "--connections=" + level[0], "--depth=" + level[1],
                "--seconds=" + number(settings.protocolSeconds()), "--warmup=" + settings.warmup());
        Servers.checkAlive(server);
        if (runs.isEmpty()) {
            say("  kvgate-load failed, see " + raw);
            return;
        }
        if (recorded) {
            protocolRows.add(new LoadRow(label, level[0], level[1], 1, generator.figures(runs.get(runs.size() - 1),
                    cores, false)));
            say("  " + summary(protocolRows.get(protocolRows.size() - 1).figures()));
        }
    }

    // --- Part 6: TLS --------------------------------------------------------------------------------------------

    private void tls() throws Exception {
        if (!onPath("openssl") || !Machine.output(tools.memcached().toString(), "-h").contains("--enable-ssl")) {
            skipped.add("TLS (no openssl command, or a memcached without TLS)");
            return;
        }
        if (overBudget(tlsSeconds())) {
            skipped.add("TLS");
            return;
        }
        Path tls = Files.createDirectories(tmp.resolve("tls"));
        Certificates.make(tls);
        lineup.tlsProbe(Certificates.trusting(tls.resolve("ca.pem")));
        int mczPort = servers.freePort();
        Servers.Started mcz = lineup.memcached("memcached-tls", mczPort, "tls", "-Z", "-o", "ssl_chain_cert="
                + tls.resolve("server.pem") + ",ssl_key=" + tls.resolve("server.key"));
        int gatewayPort = servers.freePort();
        Servers.Started gateway = lineup.tlsGateway("gateway-tls", gatewayPort, settings.javaOpts(),
                "--tls.cert=" + tls.resolve("server.pem"),
                "--tls.key=" + tls.resolve("server.key"));
        int serverCores = settings.serverCores(cores);
        targets.put("memcached-tls", new Target("memcached-tls", mczPort, "binary", mcz, null, serverCores));
        targets.put("gateway-tls", new Target("gateway-tls", gatewayPort, "binary", gateway, null, serverCores));
        for (String level : settings.loadLevels()) {
            int[] numbers = BenchSettings.level(level);
            levelRounds(List.of("memcached-tls", "gateway-tls"), numbers[0], numbers[1], tlsRows, "tls",
                    "kvgate-load over TLS", List.of("--tls-ca=" + tls.resolve("ca.pem")));
        }
    }

    /** A run's figures in a progress line. */
    private static String summary(LoadFigures figures) {
        return String.format(Locale.ROOT, "%d ops/s, p50 %d µs, p99 %d µs, %d errors, limit %s",
                figures.opsPerSecond(), figures.p50Us(), figures.p99Us(), figures.errors(), figures.cpu().limit());
    }

    /** The transport the local store's gateway said it came to at its start ("epoll"); "" unknown. */
    private String resolvedTransport() {
        try {
            Matcher said = TRANSPORT.matcher(Files.readString(local.server().log()));
            return said.find() ? said.group(1) : "";
        } catch (IOException e) {
            return "";
        }
    }
}
