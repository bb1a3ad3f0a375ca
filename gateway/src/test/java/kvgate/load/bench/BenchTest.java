package kvgate.load.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import kvgate.testing.TestGateway;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A tiny bench, end to end: real memcached, nutcracker, memaslap and gateway processes (this module's build, with
 * the plugins its tests load), every part at one short level, and the report and results.json it writes. It checks
 * that each part measured what it should, not how fast: figures on a shared test machine say nothing. It lives here,
 * beside the gateway it starts, as the bench driver's module is built before the gateway.
 */
@Tag("servers")
class BenchTest {
    @TempDir
    Path out;

    @Test
    void aTinyBenchRunsEveryPartAndReportsThem() throws Exception {
        Path root = Path.of("").toAbsolutePath().getParent();
        Map<String, String> env = new HashMap<>(Map.of("BENCH_SECONDS", "1", "BENCH_ROUNDS", "1", "BENCH_WARMUP",
                "0", "BENCH_LEVELS", "4", "BENCH_BATCH", "0", "BENCH_LOAD_LEVELS", "4x2", "BENCH_HALF_ROUNDS", "1",
                "BENCH_HALF_SECONDS", "0.5", "BENCH_HALF_REWARM", "0.2", "BENCH_PROTOCOL_SECONDS", "1"));
        env.putAll(Map.of("BENCH_PROTOCOL_LEVEL", "2x2", "BENCH_MEMORY_ITEMS", "2000", "BENCH_BUDGET", "600",
                "BENCH_PIN", "0", "BENCH_SERVER_THREADS", "1", "BENCH_OUT", out.toString(), "BENCH_REWARM", "1"));
        BenchSettings settings = BenchSettings.from(env, root, 2);
        // The gateway as this module's tests run it: its classes and the plugins they load, in a process of its own.
        List<String> gateway = List.of("java", "-Xmx256m", "-Dio.netty.tryReflectionSetAccessible=true",
                "--add-opens=java.base/java.nio=ALL-UNNAMED", "--add-opens=java.base/jdk.internal.misc=ALL-UNNAMED",
                "-cp", System.getProperty("java.class.path"), "kvgate.app.GatewayMain",
                "--config=" + root.resolve("conf/gateway.conf"),
                "--plugins.dir=" + TestGateway.pluginsDirectory().toAbsolutePath());
        List<String> generator = List.of("java", "-Xmx256m", "-cp", System.getProperty("java.class.path"),
                "kvgate.load.LoadMain");
        Tools tools = new Tools(Tools.find("memaslap", "memcaslap"), Tools.find("memcached"),
                Tools.find("nutcracker"), gateway, generator);

        String report = Bench.run(settings, root, tools, 2);

        assertEquals(report, Files.readString(out.resolve("results.md")));
        for (String part : List.of("### 1. memaslap", "### 2. kvgate-load", "### 3. p99 at half of peak",
                "### 4. Memory", "### 5. The gateway's other protocols")) {
            assertTrue(report.contains(part), part + " in:\n" + report);
        }
        assertTrue(report.contains("Throughput ratios"), report);
        JsonNode results = new ObjectMapper().readTree(out.resolve("results.json").toFile());
        boolean tls = Machine.output(tools.memcached().toString(), "-h").contains("--enable-ssl");
        // Nothing left out, but TLS where this memcached cannot serve it.
        assertEquals(tls ? 0 : 1, results.path("skipped").size(), "left out: " + results.path("skipped"));
        // Part 1: memcached, both gateways, twemproxy and the local gateway over binary, at one level and round.
        assertEquals(5, results.path("tool").size(), report);
        for (JsonNode row : results.path("tool")) {
            assertTrue(row.path("opsPerSecond").asLong() > 0, row.toString());
            assertEquals(0, row.path("misses").asLong(), row.toString());
        }
        // Each measured memaslap run followed an unrecorded one of its target at its level.
        try (Stream<Path> files = Files.list(out.resolve("raw"))) {
            assertEquals(5, files.filter(file -> file.getFileName().toString().endsWith("-c4-d1-r1-rewarm.txt"))
                    .count());
        }
        assertTrue(report.contains("each run right after 1s unrecorded at its level"), report);
        assertEquals(3, results.path("load").size(), report);
        // Part 3: each gateway and memcached beside it, one round.
        assertEquals(4, results.path("half").size(), report);
        assertEquals(2, results.path("memory").size(), report);
        for (JsonNode row : results.path("memory")) {
            assertEquals(2000, row.path("items").asLong(), row.toString());
        }
        assertEquals(7, results.path("protocols").size(), report);
        for (String part : List.of("load", "half", "protocols", "tls")) {
            for (JsonNode row : results.path(part)) {
                assertTrue(row.path("figures").path("opsPerSecond").asLong() > 0, part + ": " + row);
                assertEquals(0, row.path("figures").path("errors").asLong(), part + ": " + row);
            }
        }
        assertEquals(tls, report.contains("### 6. TLS"), report);
        assertEquals(tls ? 2 : 0, results.path("tls").size(), report);
    }
}
