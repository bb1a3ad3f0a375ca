package kvgate.load.bench;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * Runs of kvgate-load, the project's own generator, as a process of its own on the tool's cores (its own JVM, as a
 * client's would be): its command and messages to RAW.txt, its JSON lines (one per run) to RAW.json, each read into
 * {@link LoadFigures} with what limited it.
 */
final class Generator {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** How the generator is started: its JVM, options and jar (or class path and main class). */
    private final List<String> start;
    private final Servers servers;
    private final BenchSettings settings;
    private final int machineCores;

    Generator(List<String> start, Servers servers, BenchSettings settings, int machineCores) {
        this.start = List.copyOf(start);
        this.servers = servers;
        this.settings = settings;
        this.machineCores = machineCores;
    }

    /**
     * One kvgate-load process with these arguments beside the common ones (threads, keys, sizes, mix); returns its
     * JSON lines, none when it failed (its messages are in RAW.txt). It exits with 1 when a run had errors: the JSON
     * line says how many.
     */
    List<JsonNode> run(Path raw, String... arguments) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(start);
        command.addAll(List.of("--threads=" + settings.loadThreads(),
                "--keys=" + settings.loadKeys(), "--key-size=" + settings.keySize(),
                "--value-size=" + settings.valueSize(),
                "--get-ratio=" + String.format(Locale.ROOT, "%s", settings.getPercent() / 100.0)));
        command.addAll(Arrays.asList(arguments));
        Path text = raw.resolveSibling(raw.getFileName() + ".txt");
        Path json = raw.resolveSibling(raw.getFileName() + ".json");
        Files.writeString(text, String.join(" ", command) + "\n");
        Servers.Started tool = servers.tool("kvgate-load", command, json);
        // No run of the generator outlasts the bench's whole budget: one that does has hung, and is stopped.
        if (!tool.process().waitFor(settings.budgetSeconds(), TimeUnit.SECONDS)) {
            servers.stop(tool);
        }
        Files.write(text, Files.readAllBytes(tool.log()), StandardOpenOption.APPEND);
        List<JsonNode> lines = new ArrayList<>();
        for (String line : new String(Files.readAllBytes(json), StandardCharsets.UTF_8).split("\n")) {
            if (line.startsWith("{")) {
                try {
                    lines.add(JSON.readTree(line));
                } catch (JsonProcessingException e) {
                    // cut short (the generator stopped while it wrote): not a run
                }
            }
        }
        return lines;
    }

    /** What {@link #watch} lists of a target: its server, its backend and the server's JIT threads, in that order. */
    static String watch(Target target) {
        StringBuilder watch = new StringBuilder(Long.toString(target.server().pid()));
        if (target.backend() != null) {
            watch.append(',').append(target.backend().pid());
        }
        for (String thread : Ticks.jitThreads(target.server().pid())) {
            watch.append(',').append(thread);
        }
        return watch.toString();
    }

    /**
     * The figures of one run. The generator reports its own CPU and, over the same measured period, the watched
     * processes' (server, backend, then the server's JIT threads) and the machine's: other load is what the
     * machine's processes used beyond the tool, the server and the backend.
     *
     * @param hasBackend whether the second process watched is the target's backend
     */
    LoadFigures figures(JsonNode run, int serverCores, boolean hasBackend) {
        List<Double> watched = new ArrayList<>();
        run.path("watched_cpu").forEach(value -> watched.add(value.asDouble()));
        double tool = run.path("cpu_percent").asDouble();
        double server = watched.isEmpty() ? 0 : watched.get(0);
        Double backend = hasBackend ? (watched.size() > 1 ? watched.get(1) : 0.0) : null;
        Double jit = null;
        for (int i = hasBackend ? 2 : 1; i < watched.size(); i++) {
            jit = (jit == null ? 0 : jit) + watched.get(i);
        }
        double machine = run.path("machine_cpu").asDouble();
        double other = Math.max(0, machine - tool - server - (backend == null ? 0 : backend));
        String limit = Cpu.limit(tool, server, backend, other, machine + run.path("interrupt_cpu").asDouble(),
                settings.loadThreads(), serverCores, settings.serverCores(machineCores), machineCores);
        return new LoadFigures(Math.round(run.path("ops_per_s").asDouble()), Math.round(run.path("p50_us").asDouble()),
                Math.round(run.path("p99_us").asDouble()), Math.round(run.path("p999_us").asDouble()),
                run.path("errors").asLong(), run.path("unsent").asLong(),
                Math.round(run.path("late_max_us").asDouble()),
                (long) run.path("sent_p99_us").asDouble(), run.path("from_ms").asLong(), run.path("seconds").asDouble(),
                run.path("port").asInt(), run.path("round").asInt(1),
                new Cpu(tool, server, backend, other, jit, limit));
    }
}
