package kvgate.load.bench;

import static kvgate.load.bench.BenchSettings.number;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;
import java.util.stream.Collectors;

/**
 * A bench run's report: results.md, the Markdown bin/bench prints (its heading, the six parts' tables with their
 * ratios and notes), and results.json, the same {@link Results} for programs. The text is the one bin/bench's
 * {@code report} printed from the same rows, figures rounded as its awk rounded them.
 */
public final class BenchReport {
    /** The gateways whose peak in part 2 set part 3's rates, in the order part 3 shows their rows. */

    private final Results results;
    private final BenchSettings settings;
    private final StringBuilder text = new StringBuilder();

    private BenchReport(Results results) {
        this.results = results;
        this.settings = results.settings();
    }

    /** The report as Markdown. */
    public static String markdown(Results results) {
        return new BenchReport(results).render();
    }

    /**
     * Writes results.md and results.json into {@code out}, making the directory when it is missing; returns the
     * Markdown written.
     */
    public static String write(Results results, Path out) throws IOException {
        Files.createDirectories(out);
        String markdown = markdown(results);
        Files.writeString(out.resolve("results.md"), markdown);
        String json = new ObjectMapper().writerWithDefaultPrettyPrinter().writeValueAsString(results);
        Files.writeString(out.resolve("results.json"), json + "\n");
        return markdown;
    }

    private String render() {
        heading();
        memaslap();
        pipelined();
        halfOfPeak();
        memory();
        protocols();
        if (!results.tls().isEmpty()) {
            tls();
        }
        closing();
        return text.toString();
    }

    private void heading() {
        Setup setup = results.setup();
        line("## bin/bench, " + setup.started());
        line();
        line("- machine: %d CPUs (%s), %s, Linux %s; load average %s at the start, %s at the end".formatted(
                setup.cores(), orElse(setup.cpuModel(), "unknown"), setup.memory(), setup.kernel(), setup.loadStart(),
                setup.loadEnd()));
        String transport = orElse(setup.resolvedTransport(), "");
        line("- kvgate %s, %s, JVM options `%s`, `io_threads = %d`, `io_transport = %s`%s".formatted(
                orElse(setup.kvgate(), "?"), setup.java(), settings.javaOpts(), settings.serverThreads(),
                settings.ioTransport(), transport.isEmpty() ? "" : " (" + transport + ")"));
        // The options as memcached was given them: one word after another, one space apart.
        String memcachedOpts = String.join(" ", BenchSettings.words(settings.memcachedOpts()));
        line("- %s (`-t %d -m 1024%s`), %s, %s".formatted(setup.memcached(), settings.serverThreads(),
                memcachedOpts.isEmpty() ? "" : " " + memcachedOpts, nutcracker(setup.nutcracker()),
                setup.memaslap()));
        boolean textProtocol = "text".equals(settings.toolProtocol());
        line(("- load: memaslap, %d thread(s), %ss a run, %d round(s), after %d warm-up runs of 1s (per target and"
                + " batch size)%s, %d%% get / %d%% set, keys %d bytes, values %d bytes; %s protocol (twemproxy: text)%s")
                .formatted(settings.toolThreads(), number(settings.seconds()), settings.rounds(), settings.warmup(),
                        settings.rewarm() > 0 ? ", each run right after " + settings.rewarm()
                                + "s unrecorded at its level" : "",
                        settings.getPercent(), 100 - settings.getPercent(), settings.keySize(), settings.valueSize(),
                        settings.toolProtocol(),
                        textProtocol ? ", and gateway/local-binary: the local store's gateway in binary" : ""));
        line("- cores (BENCH_PIN): " + setup.pinning());
        line();
    }

    private void memaslap() {
        line("### 1. memaslap");
        line();
        line("| clients | batch | round | target | ops/s | get % | p50 µs | p99 µs | avg µs | tool CPU | server CPU"
                + " | JIT CPU | backend CPU | other CPU | limit | × memcached | × twemproxy |");
        line("|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|");
        Ratios ratios = new Ratios("Throughput", "clients × batch");
        for (ToolRow row : results.tool()) {
            String level = row.clients() + "x" + row.batch();
            String versusMemcached = "";
            String versusTwemproxy = "";
            if (!row.failed()) {
                // gateway/local-binary is compared with gateway/local, its own text path, not with memcached.
                Optional<String> memcached = toolRatio(row, "memcached");
                if (row.target().startsWith("gateway") && !row.target().endsWith("-binary")
                        && memcached.isPresent()) {
                    versusMemcached = memcached.get();
                    ratios.add(level, row.target(), "memcached", versusMemcached);
                }
                if (row.target().equals("gateway/local") && "text".equals(settings.toolProtocol())) {
                    toolRatio(row, "gateway/local-binary").ifPresent(binary ->
                            ratios.add(level, "gateway/local(text)", "gateway/local-binary", binary));
                }
                Optional<String> twemproxy = toolRatio(row, "twemproxy");
                if (row.target().equals("gateway-proxy") && twemproxy.isPresent()) {
                    versusTwemproxy = twemproxy.get();
                    ratios.add(level, row.target(), "twemproxy", versusTwemproxy);
                }
            }
            // A failed run has no figure at all: every cell a dash, its limit "failed".
            Cpu cpu = row.failed() ? null : row.cpu();
            cells(row.clients(), row.batch(), row.round(), row.target(),
                    row.failed() ? "failed" : row.opsPerSecond(),
                    row.getPercent() == null ? "-" : whole(row.getPercent()), orDash(row.p50()), orDash(row.p99()),
                    orDash(row.avg()), cpu == null ? "-" : percent(cpu.tool()),
                    cpu == null ? "-" : percent(cpu.server()), cpu == null ? "-" : percent(cpu.jit()),
                    cpu == null ? "-" : percent(cpu.backend()), cpu == null ? "-" : percent(cpu.other()),
                    row.failed() ? "failed" : cpu == null ? "-" : cpu.limitText(), versusMemcached, versusTwemproxy);
        }
        line();
        text.append(ratios.table());
        line();
        // The column shows other load rounded to whole percents: the note goes by what the reader sees.
        if (results.tool().stream().anyMatch(row -> !row.failed() && row.cpu() != null
                && Math.rint(row.cpu().other()) >= 20)) {
            line("""
                Other load took 20% of a core or more during some runs (column "other CPU"): those rows measure a \
                shared machine, and their ratios compare runs that did not get the same CPU.""");
            line();
        }
        if (results.tool().stream().anyMatch(row -> row.misses() != null && row.misses() > 0)) {
            line("Some runs had get misses (memaslap reads only keys it wrote): see the raw output.");
            line();
        }
        line("""
                clients: memaslap connections; batch: gets sent together (memaslap --division; 1 = one request at a \
                time per connection). p50/p99: upper edge of the log2 bucket of memaslap's latency histogram that \
                holds the percentile (the value lies between half of it and it); a batch counts as one latency. CPU: \
                percent of one core over the run; server: memcached, the gateway's JVM or nutcracker; backend: the \
                memcached behind a proxy; other: every other user process on the machine (not this script's; kernel \
                threads and interrupt work, which loopback networking causes, are counted only in the all-cores-busy \
                test). limit: tool / server / backend when it used ≥ 90% of the cores it can use; "CPU, …" when all \
                cores were busy (named: the biggest user: tool, server or other load); round trips otherwise. × \
                columns: throughput ratio at the same clients and batch.""");
        line();
    }

    private void pipelined() {
        line("### 2. kvgate-load: the binary protocol, pipelined");
        line();
        line(("kvgate-load (%d network thread(s), JVM `%s`): %ss a run after a %ds warm-up in the same run; the %d"
                + " keys stored once before each run, so gets hit; then %d%% get / %d%% set of random keys.").formatted(
                settings.loadThreads(), settings.loadJavaOpts(), number(settings.seconds()), settings.warmup(),
                settings.loadKeys(), settings.getPercent(), 100 - settings.getPercent()));
        line();
        line("| connections | depth | round | target | ops/s | p50 µs | p99 µs | p99.9 µs | errors | tool CPU"
                + " | server CPU | JIT CPU | backend CPU | other CPU | limit | × memcached |");
        line("|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|");
        Ratios ratios = new Ratios("Throughput", "connections × depth");
        for (LoadRow row : results.load()) {
            String versusMemcached = "";
            Optional<String> memcached = loadRatio(row, results.load(), "memcached");
            if (row.target().startsWith("gateway") && memcached.isPresent()) {
                versusMemcached = memcached.get();
                ratios.add(row.connections() + "x" + row.depth(), row.target(), "memcached", versusMemcached);
            }
            LoadFigures figures = row.figures();
            Cpu cpu = figures.cpu();
            cells(row.connections(), row.depth(), row.round(), row.target(), figures.opsPerSecond(), figures.p50Us(),
                    figures.p99Us(), figures.p999Us(), figures.errors(), percent(cpu.tool()), percent(cpu.server()),
                    percent(cpu.jit()), percent(cpu.backend()), percent(cpu.other()), cpu.limitText(),
                    versusMemcached);
        }
        line();
        text.append(ratios.table());
        line("depth: requests in flight per connection (pipelining). errors: error replies, wrong replies, timeouts.");
        line("""
                CPU as in part 1, measured by kvgate-load over its measured period (tool: its own JVM; other: the \
                rest of the machine's processes).""");
        line();
    }

    private void halfOfPeak() {
        line("### 3. p99 at half of peak");
        line();
        line("""
                Each gateway's peak is its best throughput in part 2; it and memcached then take half of that as a \
                fixed rate (open loop) at the peak's level, each intended time sending a batch of as many requests \
                as the level's depth in one write, in up to %d rounds of alternating order (as many as the time \
                allows), each run measured for %ss, all of a gateway's runs and memcached's by one kvgate-load \
                process (a series: compiled once, so every run after the first warms up for %ss only, and twice as \
                many runs fit in the time a process per run took); the p99 ratio is each round's, and their median \
                is the figure to read (no one round decides it). Latency counts from each request's intended send \
                time, so queueing behind a slow reply is not hidden. p99 from send: the p99 counted from each \
                request's actual send instead, which leaves out the tool's own lateness and a full pipeline's wait \
                (closer to the server's own tail; the target reads the first). unsent: requests due that never left, \
                every connection's pipeline being full (a server that keeps up has none). tool late: the longest \
                kvgate-load took to get to a batch after its intended time; a p99.9 far above it is not a pause of \
                the tool. †: a round in which either server's p99.9 was %d ms or more, a stall that says nothing of \
                the servers' tails (kvgate-load measures only once it has caught up with its schedule after the \
                warm-up, which removed the stalls seen before); the last table leaves such rounds out (a server that \
                stalls in every round of its own has none left there). ‡: memcached's LRU crawler started about the \
                run (its count of crawls, read every 200 ms, grew between the last reading before the run's \
                measured period and the first after it); it walks every item on the servers' core, unpaced, \
                whichever server is being measured. The last table leaves out the rounds with a crawl in either \
                server's run as well, which favours neither: a crawl in memcached's run raises its p99, one in the \
                gateway's raises the gateway's. The gateway's own purge of expired items is not marked: paced to a \
                tenth of a core, it takes little from whichever server runs meanwhile.""".formatted(
                settings.halfRounds(), number(settings.halfSeconds()), number(settings.halfRewarm()),
                HalfRow.STALL_US / 1000));
        line();
        line("| half of the peak of | round | target | rate | ops/s | p50 µs | p99 µs | p99.9 µs | p99 from send µs"
                + " | errors | unsent | tool late µs | tool CPU | server CPU | JIT CPU | backend CPU | other CPU"
                + " | p99 × memcached | p99 from send × memcached |");
        line("|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
        String levelName = "connections × depth";
        Ratios ratios = new Ratios("p99", levelName);
        Ratios calm = new Ratios("p99 (only the rounds in which both servers' p99.9 was under "
                + HalfRow.STALL_US / 1000 + " ms)", levelName);
        Ratios quiet = new Ratios("p99 (only the rounds without a stall and without a crawl of memcached's in either"
                + " server's run)", levelName);
        Ratios fromSend = new Ratios("p99 from each request's send (the tool's lateness and full pipelines left out)",
                levelName);
        for (String reference : HalfRow.REFERENCES) {
            for (HalfRow row : results.half()) {
                if (row.reference().equals(reference)) {
                    halfRow(row, ratios, calm, quiet, fromSend);
                }
            }
        }
        line();
        text.append(ratios.table()).append(calm.table()).append(quiet.table()).append(fromSend.table());
    }

    /** One row of part 3, its ratios to memcached's run of the same round added to the tables. */
    private void halfRow(HalfRow row, Ratios ratios, Ratios calm, Ratios quiet, Ratios fromSend) {
        LoadFigures figures = row.figures();
        String level = row.connections() + "x" + row.depth();
        Optional<HalfRow> memcached = row.target().equals("memcached") ? Optional.empty()
                : last(results.half(), other -> other.reference().equals(row.reference())
                        && other.target().equals("memcached") && other.rate() == row.rate()
                        && other.round() == row.round());
        String versusSent = "";
        if (memcached.isPresent() && memcached.get().figures().sentP99Us() > 0) {
            versusSent = Ratios.ratio(figures.sentP99Us(), memcached.get().figures().sentP99Us());
            fromSend.add(level, row.target(), "memcached", versusSent);
        }
        String versusP99 = "";
        if (memcached.isPresent() && memcached.get().figures().p99Us() > 0) {
            HalfRow reference = memcached.get();
            versusP99 = Ratios.ratio(figures.p99Us(), reference.figures().p99Us());
            ratios.add(level, row.target(), "memcached", versusP99);
            if (HalfRow.stalled(figures.p999Us()) || HalfRow.stalled(reference.figures().p999Us())) {
                versusP99 += " †";
            } else {
                calm.add(level, row.target(), "memcached", versusP99);
                // An unknown count of crawls may hide one: only rounds known to have none are quiet.
                if (Long.valueOf(0).equals(row.crawls()) && Long.valueOf(0).equals(reference.crawls())) {
                    quiet.add(level, row.target(), "memcached", versusP99);
                }
            }
        }
        String crawl = row.crawls() != null && row.crawls() > 0 ? " ‡" : "";
        Cpu cpu = figures.cpu();
        cells("%s (%d×%d, batches of %d)".formatted(row.reference(), row.connections(), row.depth(), row.depth()),
                row.round(), row.target() + crawl, row.rate(), figures.opsPerSecond(), figures.p50Us(),
                figures.p99Us(), figures.p999Us(), figures.sentP99Us(), figures.errors(), figures.unsent(),
                figures.lateMaxUs(), percent(cpu.tool()), percent(cpu.server()), percent(cpu.jit()),
                percent(cpu.backend()), percent(cpu.other()), versusP99, versusSent);
    }

    private void memory() {
        line("### 4. Memory: %d items of %d bytes".formatted(settings.memoryItems(), settings.valueSize()));
        line();
        line("""
                A fresh memcached (`-m 1024`) and a fresh gateway on the local store in memory (`local.path = \
                :memory:`, `local.memory_limit = 240m`, JVM `%s`), each filled by kvgate-load with keys of %d bytes. \
                RSS: VmRSS from /proc, in MiB; after GC: after a full collection asked with jcmd, beside the heap it \
                left in use.""".formatted(settings.memoryJavaOpts(), settings.keySize()));
        line();
        line("| server | items stored | RSS empty | RSS filled | × memcached | heap in use after GC | RSS after GC"
                + " | × memcached |");
        line("|---|---:|---:|---:|---:|---:|---:|---:|");
        Optional<Long> memcached = last(results.memory(), row -> row.server().equals("memcached"))
                .map(MemoryRow::rssFilledKb).filter(kb -> kb > 0);
        for (MemoryRow row : results.memory()) {
            String versusFilled = "";
            String versusSettled = "";
            if (!row.server().equals("memcached") && memcached.isPresent()) {
                versusFilled = Ratios.ratio(row.rssFilledKb(), memcached.get());
                if (row.rssAfterGcKb() != null) {
                    versusSettled = Ratios.ratio(row.rssAfterGcKb(), memcached.get());
                }
            }
            cells(row.server(), row.items(), mib(row.rssEmptyKb()), mib(row.rssFilledKb()), versusFilled,
                    mib(row.heapUsedKb()), mib(row.rssAfterGcKb()), versusSettled);
        }
        line();
    }

    private void protocols() {
        line("### 5. The gateway's other protocols, on the local store");
        line();
        line("""
                kvgate-load, closed loop, %ss a run after %ds. counter: an Acquire then a Release of one of %d names \
                (each is one op); okuyama: setValue, getValue, and for a tenth of the reads getMultiValue of 10 keys \
                (one op); MPDB: INSERT and GET of one key, one UDP socket per connection with its own echo sequence; \
                collections: binary Get/Set with a manifest of 4 collections, keys spread over them; okuyama-lists: \
                listRPush then listLPop of one of %d lists (each is one op); okuyama-locks: lockData then \
                releaseLockData of one of %d keys in a transaction per connection, on a gateway with \
                okuyama.transactions (a lock another connection holds is a miss); okuyama-transactions: the okuyama \
                mix on that gateway, where each write first reads its key's lock.""".formatted(
                number(settings.protocolSeconds()), settings.warmup(), settings.loadKeys(), settings.loadKeys(),
                settings.loadKeys()));
        line();
        line("| protocol | connections | depth | ops/s | p50 µs | p99 µs | p99.9 µs | errors | tool CPU | server CPU"
                + " | other CPU | limit |");
        line("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|");
        for (LoadRow row : results.protocols()) {
            LoadFigures figures = row.figures();
            Cpu cpu = figures.cpu();
            cells(row.target(), row.connections(), row.depth(), figures.opsPerSecond(), figures.p50Us(),
                    figures.p99Us(), figures.p999Us(), figures.errors(), percent(cpu.tool()), percent(cpu.server()),
                    percent(cpu.other()), cpu.limitText());
        }
        line();
    }

    private void tls() {
        line("### 6. TLS");
        line();
        line("""
                kvgate-load over TLS (TLS 1.3, the certificate checked against a CA made for the run), binary \
                protocol, closed loop, the same mix and %ss runs as part 2: memcached -Z and the gateway on the \
                local store with memcached.tls (OpenSSL). plain: the same server's ops/s in part 2 at the same level \
                and round.""".formatted(number(settings.seconds())));
        line();
        line("| target | connections | depth | round | ops/s | p50 µs | p99 µs | p99.9 µs | tool CPU | server CPU"
                + " | limit | plain ops/s | TLS / plain | gateway / memcached |");
        line("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|");
        for (LoadRow row : results.tls()) {
            boolean gateway = row.target().equals("gateway-tls");
            Optional<LoadRow> plain = loadReference(row, results.load(), gateway ? "gateway/local" : "memcached");
            String versusPlain = plain.flatMap(other -> ratio(row, other)).orElse("");
            String versusMemcached = gateway ? loadRatio(row, results.tls(), "memcached-tls").orElse("") : "";
            LoadFigures figures = row.figures();
            Cpu cpu = figures.cpu();
            cells(row.target(), row.connections(), row.depth(), row.round(), figures.opsPerSecond(), figures.p50Us(),
                    figures.p99Us(), figures.p999Us(), percent(cpu.tool()), percent(cpu.server()), cpu.limitText(),
                    plain.map(other -> Long.toString(other.figures().opsPerSecond())).orElse(""), versusPlain,
                    versusMemcached);
        }
        line();
    }

    private void closing() {
        if (!results.skipped().isEmpty()) {
            line("Not run, to stay within %ds: %s.".formatted(settings.budgetSeconds(),
                    String.join("; ", results.skipped())));
            line();
        }
        line("Measured in %ds (start-up included, build excluded).".formatted(results.setup().elapsedSeconds()));
    }

    /**
     * The ratio of {@code row}'s throughput to that of {@code name}'s run at the same clients, batch and round,
     * the last such run that did not fail; empty when there is none.
     */
    private Optional<String> toolRatio(ToolRow row, String name) {
        return last(results.tool(), other -> other.target().equals(name) && !other.failed()
                && other.clients() == row.clients() && other.batch() == row.batch() && other.round() == row.round())
                .map(ToolRow::opsPerSecond)
                .filter(ops -> ops > 0)
                .map(ops -> Ratios.ratio(row.opsPerSecond(), ops));
    }

    /** The ratio of {@code row}'s throughput to that of {@code name}'s run in {@code rows} at its level and round. */
    private static Optional<String> loadRatio(LoadRow row, List<LoadRow> rows, String name) {
        return loadReference(row, rows, name).flatMap(other -> ratio(row, other));
    }

    /** The last run of {@code name} in {@code rows} at {@code row}'s connections, depth and round. */
    private static Optional<LoadRow> loadReference(LoadRow row, List<LoadRow> rows, String name) {
        return last(rows, other -> other.target().equals(name) && other.connections() == row.connections()
                && other.depth() == row.depth() && other.round() == row.round());
    }

    private static Optional<String> ratio(LoadRow row, LoadRow reference) {
        long ops = reference.figures().opsPerSecond();
        return ops > 0 ? Optional.of(Ratios.ratio(row.figures().opsPerSecond(), ops)) : Optional.empty();
    }

    /** The last of {@code rows} that matches: a run measured twice counts with its later figures. */
    private static <T> Optional<T> last(List<T> rows, Predicate<T> match) {
        T found = null;
        for (T row : rows) {
            if (match.test(row)) {
                found = row;
            }
        }
        return Optional.ofNullable(found);
    }

    private void line(String line) {
        text.append(line).append('\n');
    }

    private void line() {
        text.append('\n');
    }

    private void cells(Object... cells) {
        line(Arrays.stream(cells).map(String::valueOf).collect(Collectors.joining(" | ", "| ", " |")));
    }

    private static String whole(double value) {
        return Ratios.fixed(value, 0);
    }

    private static String percent(double value) {
        return whole(value) + "%";
    }

    private static String percent(Double value) {
        return value == null ? "-" : percent(value.doubleValue());
    }

    /** KiB as whole MiB; "" for an unknown size. */
    private static String mib(Long kb) {
        return kb == null ? "" : Ratios.fixed(kb / 1024.0, 0);
    }

    /** A setting's number as it was written: "3", not "3.0". */
    private static String orDash(String value) {
        return value == null ? "-" : value;
    }

    private static String orElse(String value, String otherwise) {
        return value == null || value.isBlank() ? otherwise : value;
    }

    /** nutcracker says "This is nutcracker-0.5.0": the heading names it without the phrase. */
    private static String nutcracker(String version) {
        return version.replaceFirst("This is ", "");
    }

}
