package kvgate.load.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import kvgate.load.ProcCpu;

/**
 * Part 1's runs: memaslap, the external tool, against one target at a time, with the CPU of the tool, the server,
 * its backend, the server's JIT threads, the machine and every other process sampled while it works; its output
 * parsed into a {@link ToolRow}.
 */
final class Memaslap {
    private final Path memaslap;
    private final Path config;
    private final Path raw;
    private final Servers servers;
    private final BenchSettings settings;
    private final int machineCores;

    /**
     * @param config memaslap's distribution file (key and value sizes, the get/set mix)
     * @param raw where each run's output goes
     */
    Memaslap(Path memaslap, Path config, Path raw, Servers servers, BenchSettings settings, int machineCores) {
        this.memaslap = memaslap;
        this.config = config;
        this.raw = raw;
        this.servers = servers;
        this.settings = settings;
        this.machineCores = machineCores;
    }

    /** memaslap's distribution file: key and value sizes (min max share), then commands (0 set, 1 get) and shares. */
    static String distribution(BenchSettings settings) {
        return String.format(Locale.ROOT, "key\n%d %d 1\nvalue\n%d %d 1\ncmd\n0 0.%02d\n1 0.%02d\n",
                settings.keySize(), settings.keySize(), settings.valueSize(), settings.valueSize(),
                100 - settings.getPercent(), settings.getPercent());
    }

    /** One run of {@code seconds} against {@code target}; {@code suffix} names its raw file apart ("-r1"). */
    ToolRow run(Target target, int clients, int batch, int seconds, String suffix, int round)
            throws IOException, InterruptedException {
        // A statistics period (-S) makes memaslap time every request and print its latency histogram at the end;
        // one longer than the run leaves out the periodic reports.
        List<String> command = new ArrayList<>(List.of(memaslap.toString(), "-s", "127.0.0.1:" + target.port(),
                "-F", config.toString(), "-t", seconds + "s", "-S", (seconds + 3600) + "s",
                "-T", Integer.toString(settings.toolThreads()), "-c", Integer.toString(clients)));
        if (target.protocol().equals("binary")) {
            command.add("-B");
        }
        if (batch > 1) {
            command.addAll(List.of("-d", Integer.toString(batch)));
        }
        Path output = raw.resolve(target.name().replace('/', '-') + "-c" + clients + "-d" + batch + suffix + ".txt");
        Files.writeString(output, String.join(" ", command) + "\n");

        long server = target.server().pid();
        List<String> jit = Ticks.jitThreads(server);
        Long j0 = Ticks.sum(jit);
        long s0 = ProcCpu.process(Long.toString(server));
        long b0 = target.backend() == null ? 0 : ProcCpu.process(Long.toString(target.backend().pid()));
        ProcCpu.MachineTicks m0 = ProcCpu.machine();
        Set<Long> ours = ours();
        // Other load is read, and the clock started, before the tool starts: its CPU counts from its start, and
        // the time it is divided by must too.
        Map<Long, Long> foreignStart = Ticks.foreign(ours);
        long t0 = System.nanoTime();
        Servers.Started tool = servers.tool("memaslap", command);
        ours.add(tool.pid());
        long s1 = s0;
        long b1 = b0;
        ProcCpu.MachineTicks m1 = m0;
        Long j1 = j0;
        long t1 = t0;
        long seen = -1;
        Long other = null;
        // Every 0.1 s while the tool works, what it, the servers and the machine used so far is sampled. memaslap
        // idles for about a second after its load ends, before it exits: the first sample after the run's length at
        // which it used no CPU ends the measurement, so the figures cover the load and nothing after it.
        long deadline = t0 + TimeUnit.SECONDS.toNanos(seconds + 60L);
        while (tool.alive() && System.nanoTime() < deadline) {
            Thread.sleep(100);
            if (other != null) {
                continue;
            }
            long used = ProcCpu.process(Long.toString(tool.pid()));
            if (used < 0) {
                break;
            }
            long now = System.nanoTime();
            if (used != seen) {
                seen = used;
                s1 = ProcCpu.process(Long.toString(server));
                b1 = target.backend() == null ? 0 : ProcCpu.process(Long.toString(target.backend().pid()));
                m1 = ProcCpu.machine();
                j1 = Ticks.sum(jit);
                t1 = now;
            } else if (now - t0 >= TimeUnit.SECONDS.toNanos(seconds)) {
                other = Ticks.foreignSince(foreignStart, ours);
            }
        }
        if (other == null) {
            other = Ticks.foreignSince(foreignStart, ours);
        }
        if (!tool.process().waitFor(5, TimeUnit.SECONDS)) {
            servers.stop(tool);
        }
        Files.write(output, Files.readAllBytes(tool.log()), StandardOpenOption.APPEND);
        Servers.checkAlive(target.server(), target.backend());
        double active = (t1 - t0) / 1e9;
        return parse(output, target, clients, batch, round, active, Math.max(seen, 0), s1 - s0,
                target.backend() == null ? null : b1 - b0, other, m0, m1, j0 == null ? null : j1 - j0);
    }

    /** The processes whose CPU is not "other load": this JVM and the servers it started. */
    private Set<Long> ours() {
        Set<Long> ours = new HashSet<>(servers.pids());
        ours.add(ProcessHandle.current().pid());
        return ours;
    }

    /**
     * The row of one run from memaslap's output and the CPU ticks sampled: its throughput, get share, the p50 and
     * p99 of its log2 latency histogram (the upper edge of the bucket that holds them), its average, misses.
     */
    ToolRow parse(Path output, Target target, int clients, int batch, int round, double active, long tool,
                  long server, Long backend, long other, ProcCpu.MachineTicks m0, ProcCpu.MachineTicks m1, Long jit)
            throws IOException {
        Output printed;
        try {
            printed = Output.read(output);
        } catch (NumberFormatException | ArrayIndexOutOfBoundsException e) {
            printed = null; // a line memaslap did not print as it does: this run failed, not the bench
        }
        if (printed == null || printed.run() <= 0 || printed.tps() == null) {
            return new ToolRow(target.name(), clients, batch, target.protocol(), round, null, null, null, null, null,
                    null, null);
        }
        double run = printed.run();
        double seconds = active > 0 ? active : run;
        double toolShare = Ticks.percent(tool, seconds);
        double serverShare = Ticks.percent(server, seconds);
        Double backendShare = backend == null ? null : Ticks.percent(backend, seconds);
        double otherShare = Ticks.percent(other, seconds);
        double processes = Ticks.percent(m1.processes() - m0.processes(), seconds);
        double interrupts = Ticks.percent(m1.interrupts() - m0.interrupts(), seconds);
        Double jitShare = jit == null ? null : Ticks.percent(jit, seconds);
        int backendCores = target.backend() == null ? 0 : settings.serverCores(machineCores);
        String limit = Cpu.limit(toolShare, serverShare, backendShare, otherShare, processes + interrupts,
                settings.toolThreads(), target.cores(), backendCores, machineCores);
        // The CPU accounting, in percent of one core, is appended to the raw output for whoever checks a row.
        Files.writeString(output, String.format(Locale.ROOT, "%nbench: %.2fs measured; CPU %%: tool %.1f, server %.1f "
                + "(JIT %s), backend %.1f, other processes %.1f; machine: processes %.1f, interrupts %.1f%n", seconds,
                toolShare, serverShare, jitShare == null ? "-" : String.format(Locale.ROOT, "%.0f", jitShare),
                backendShare == null ? 0 : backendShare, otherShare, processes, interrupts),
                StandardOpenOption.APPEND);
        long gets = printed.gets();
        long sets = printed.sets();
        return new ToolRow(target.name(), clients, batch, target.protocol(), round, printed.tps(),
                gets + sets == 0 ? 0.0 : 100.0 * gets / (gets + sets), percentile(printed.histogram(), 0.5),
                percentile(printed.histogram(), 0.99), printed.avg() == null ? "-" : printed.avg(), printed.misses(),
                new Cpu(toolShare, serverShare, backendShare, otherShare, jitShare, limit));
    }

    /**
     * What memaslap printed of its whole run: its "Total Statistics" (average, log2 latency histogram), its counts
     * of commands and misses, and its run time and throughput (null when it printed none).
     */
    record Output(TreeMap<Integer, Long> histogram, String avg, long gets, long sets, long misses, double run,
                  Long tps) {
        /** Reads the output leniently as to bytes (not UTF-8 becomes a replacement character). */
        static Output read(Path output) throws IOException {
            TreeMap<Integer, Long> histogram = new TreeMap<>();
            String avg = null;
            long gets = 0;
            long sets = 0;
            long misses = 0;
            double run = 0;
            Long tps = null;
            boolean total = false;
            for (String line : new String(Files.readAllBytes(output), StandardCharsets.UTF_8).split("\n")) {
                String[] f = line.trim().split("\\s+");
                if (line.startsWith("Total Statistics (")) {
                    total = true;
                } else if (total && line.isBlank() && avg != null) {
                    total = false;
                } else if (total && f[0].equals("Avg:")) {
                    avg = f[1];
                } else if (total && f[0].matches("[0-9]+:")) {
                    int first = Integer.parseInt(f[0].substring(0, f[0].length() - 1));
                    for (int i = 1; i < f.length; i++) {
                        histogram.put(first + i - 1, Long.parseLong(f[i]));
                    }
                } else if (f[0].equals("cmd_get:")) {
                    gets = Long.parseLong(f[1]);
                } else if (f[0].equals("cmd_set:")) {
                    sets = Long.parseLong(f[1]);
                } else if (f[0].equals("get_misses:")) {
                    misses = Long.parseLong(f[1]);
                } else if (line.startsWith("Run time:") && f.length >= 7) {
                    run = Double.parseDouble(f[2].replace("s", ""));
                    tps = Long.parseLong(f[6]);
                }
            }
            return new Output(histogram, avg, gets, sets, misses, run, tps);
        }
    }

    /** "≤2^i" µs for the log2 bucket i that holds quantile q; "-" for an empty histogram. */
    static String percentile(TreeMap<Integer, Long> histogram, double q) {
        long n = histogram.values().stream().mapToLong(Long::longValue).sum();
        if (n == 0) {
            return "-";
        }
        long seen = 0;
        for (Map.Entry<Integer, Long> bucket : histogram.entrySet()) {
            seen += bucket.getValue();
            if (seen >= q * n) {
                return "≤" + (1L << bucket.getKey());
            }
        }
        return "-";
    }
}
