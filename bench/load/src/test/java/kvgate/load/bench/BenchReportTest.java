package kvgate.load.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link BenchReport} and {@link Ratios}: the ratios and what they are taken against, the rounds the calm and quiet
 * tables leave out, the markers, the TLS columns, and results.json.
 */
class BenchReportTest {
    private static final Cpu CPU = new Cpu(50, 80, null, 1, 2.0, "round-trips");

    private static final BenchSettings SETTINGS = BenchSettings.from(Map.of(), Path.of("/tmp/bench"), 4);

    private static final Setup SETUP = new Setup("2026-11-29 06:10 UTC", 4, "Test CPU", "8 GiB", "6.1.0", "0.10",
            "0.20", "c1a638c", "openjdk version \"17\"", "epoll", "memcached 1.6.21", "This is nutcracker-0.5.0",
            "memaslap v1.0 (memaslap)", "none", 321);

    private static ToolRow tool(String target, int batch, int round, long ops) {
        return new ToolRow(target, 32, batch, "text", round, ops, 90.0, "≤64", "≤256", "40", 0L, CPU);
    }

    private static ToolRow failed(String target, int batch, int round) {
        return new ToolRow(target, 32, batch, "text", round, null, null, null, null, null, null, null);
    }

    private static LoadFigures figures(long ops, long p99, long p999, long sentP99, int round) {
        return new LoadFigures(ops, 100, p99, p999, 0, 0, 900, sentP99, 0, 3, 11211, round, CPU);
    }

    private static LoadRow load(String target, int round, long ops) {
        return new LoadRow(target, 32, 16, round, figures(ops, 300, 900, 250, round));
    }

    private static HalfRow half(String target, int round, long p99, long p999, long sentP99, Long crawls) {
        return new HalfRow("gateway/local", target, 500_000, 32, 16, round, figures(499_000, p99, p999, sentP99, round),
                crawls);
    }

    /**
     * Two rounds at 32x1, where memcached's throughput differs between them, then a level (32x16) whose memcached
     * would give other ratios to a lookup that ignored the level: it comes last, so it would win there.
     */
    private static final List<ToolRow> TOOL = List.of(
            tool("memcached", 1, 1, 10_000), tool("gateway/local", 1, 1, 12_000), tool("twemproxy", 1, 1, 9_000),
            tool("gateway-proxy", 1, 1, 9_000),
            tool("memcached", 1, 2, 15_000), tool("gateway/local", 1, 2, 12_000), failed("twemproxy", 1, 2),
            tool("gateway-proxy", 1, 2, 12_000),
            tool("memcached", 16, 1, 60_000), tool("gateway/local", 16, 1, 30_000),
            tool("memcached", 16, 2, 60_000), failed("gateway/local", 16, 2));

    private static final List<LoadRow> LOAD = List.of(
            load("memcached", 1, 100_000), load("gateway/local", 1, 120_000),
            load("gateway/local", 2, 90_000), load("memcached", 2, 100_000));

    /** Round 1 quiet; round 2 the gateway stalled; round 3 memcached's LRU crawler ran. */
    private static final List<HalfRow> HALF = List.of(
            half("gateway/local", 1, 300, 900, 200, 0L), half("memcached", 1, 250, 800, 100, 0L),
            half("memcached", 2, 200, 800, 100, 0L), half("gateway/local", 2, 400, 30_000, 300, 0L),
            half("gateway/local", 3, 240, 900, 100, 0L), half("memcached", 3, 300, 900, 100, 2L));

    private static final List<MemoryRow> MEMORY = List.of(
            new MemoryRow("memcached", 1000, 2048, 102_400, null, null),
            new MemoryRow("gateway", 1000, 4096, 204_800, 51_200L, 153_600L));

    private static final List<LoadRow> PROTOCOLS = List.of(
            new LoadRow("counter", 16, 8, 1, figures(70_000, 200, 400, 150, 1)));

    private static final List<LoadRow> TLS = List.of(
            load("memcached-tls", 1, 50_000), load("gateway-tls", 1, 60_000));

    private static Results results(List<LoadRow> tls, List<String> skipped) {
        return new Results(SETTINGS, SETUP, TOOL, LOAD, HALF, MEMORY, PROTOCOLS, tls, skipped);
    }

    private static final Results RESULTS = results(TLS, List.of("TLS at 32x1", "the memory part"));

    /** The cells of the one line of {@code markdown} that begins with {@code start}. */
    private static List<String> row(String markdown, String start) {
        List<String> lines = markdown.lines().filter(line -> line.startsWith(start)).toList();
        if (lines.size() != 1) {
            fail("expected one line beginning with '" + start + "', found " + lines + " in\n" + markdown);
        }
        String line = lines.get(0);
        return Arrays.asList(line.substring(2, line.length() - 2).split(" \\| ", -1));
    }

    /** Part {@code number} of the report, from its heading to the next part's. */
    private static String part(String markdown, int number) {
        int start = markdown.indexOf("\n### " + number + ". ");
        if (start < 0) {
            fail("no part " + number + " in\n" + markdown);
        }
        int end = markdown.indexOf("\n### ", start + 1);
        return markdown.substring(start + 1, end < 0 ? markdown.length() : end + 1);
    }

    /** The lines of the ratio table whose title begins with {@code title}. */
    private static List<String> ratioTable(String markdown, String title) {
        List<String> lines = markdown.lines().toList();
        int at = -1;
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).startsWith(title + " ratios, each round's")) {
                if (at >= 0) {
                    fail("two tables titled '" + title + "'");
                }
                at = i;
            }
        }
        if (at < 0) {
            fail("no table titled '" + title + "' in\n" + markdown);
        }
        int end = at + 4;
        while (end < lines.size() && !lines.get(end).isEmpty()) {
            end++;
        }
        return lines.subList(at + 4, end);
    }

    @Test
    void eachRoundIsComparedWithMemcachedAtItsOwnLevelAndRound() {
        String markdown = part(BenchReport.markdown(RESULTS), 1);
        assertEquals("1.20", row(markdown, "| 32 | 1 | 1 | gateway/local |").get(15));
        assertEquals("0.80", row(markdown, "| 32 | 1 | 2 | gateway/local |").get(15));
        assertEquals("0.50", row(markdown, "| 32 | 16 | 1 | gateway/local |").get(15));
        List<String> proxy = row(markdown, "| 32 | 1 | 1 | gateway-proxy |");
        assertEquals(List.of("0.90", "1.00"), proxy.subList(15, 17));
        assertEquals(List.of(
                        "| 32x1 | gateway/local | memcached | 1.20, 0.80 | 1.00 | 1.00 |",
                        "| 32x1 | gateway-proxy | memcached | 0.90, 0.80 | 0.85 | 0.85 |",
                        "| 32x1 | gateway-proxy | twemproxy | 1.00 | 1.00 | 1.00 |",
                        "| 32x16 | gateway/local | memcached | 0.50 | 0.50 | 0.50 |"),
                ratioTable(markdown, "Throughput").subList(0, 4));
    }

    @Test
    void aFailedRunHasNoRatioAndIsNoReference() {
        String markdown = part(BenchReport.markdown(RESULTS), 1);
        List<String> failed = row(markdown, "| 32 | 16 | 2 | gateway/local |");
        assertEquals("failed", failed.get(4));
        assertEquals("failed", failed.get(14));
        assertEquals(List.of("", ""), failed.subList(15, 17));
        assertEquals("-", failed.get(9));
        // Against a failed twemproxy the gateway-proxy row has a ratio to memcached only.
        assertEquals(List.of("0.80", ""), row(markdown, "| 32 | 1 | 2 | gateway-proxy |").subList(15, 17));
    }

    @Test
    void theMedianOfThreeRoundsIsTheMiddleOne() {
        Ratios ratios = new Ratios("p99", "connections × depth");
        ratios.add("32x16", "gateway/local", "memcached", "1.50");
        ratios.add("32x1", "gateway/local", "memcached", "1.10");
        ratios.add("32x16", "gateway/local", "memcached", "0.90");
        ratios.add("32x16", "gateway/local", "memcached", "1.00");
        assertEquals("""
                p99 ratios, each round's (in the order measured), their mean and their median:

                | connections × depth | target | × | rounds | mean | median |
                |---:|---|---|---|---:|---:|
                | 32x16 | gateway/local | memcached | 1.50, 0.90, 1.00 | 1.13 | 1.00 |
                | 32x1 | gateway/local | memcached | 1.10 | 1.10 | 1.10 |

                """, ratios.table());
    }

    @Test
    void ratiosAreRoundedAsAwkRoundedThem() {
        assertEquals("1.12", Ratios.ratio(9000, 8000));
        assertEquals("0.67", Ratios.ratio(2, 3));
        Ratios ratios = new Ratios("Throughput", "clients × batch");
        ratios.add("32x1", "gateway/local", "memcached", "1.12");
        ratios.add("32x1", "gateway/local", "memcached", "1.13");
        assertTrue(ratios.table().contains("| 1.12, 1.13 | 1.12 | 1.12 |"), ratios.table());
        assertTrue(new Ratios("p99", "level").isEmpty());
        assertEquals("", new Ratios("p99", "level").table());
    }

    @Test
    void aStalledRoundIsMarkedAndLeftOutOfTheCalmTable() {
        String markdown = BenchReport.markdown(RESULTS);
        String gateway = "| gateway/local (32×16, batches of 16) | ";
        assertEquals("2.00 †", row(markdown, gateway + "2 | gateway/local |").get(17));
        assertEquals("1.20", row(markdown, gateway + "1 | gateway/local |").get(17));
        assertEquals("2.00", row(markdown, gateway + "1 | gateway/local |").get(18));
        assertEquals(List.of("", ""), row(markdown, gateway + "1 | memcached |").subList(17, 19));
        assertEquals(List.of("| 32x16 | gateway/local | memcached | 1.20, 2.00, 0.80 | 1.33 | 1.20 |"),
                ratioTable(markdown, "p99"));
        assertEquals(List.of("| 32x16 | gateway/local | memcached | 1.20, 0.80 | 1.00 | 1.00 |"),
                ratioTable(markdown, "p99 (only the rounds in which both servers' p99.9 was under 20 ms)"));
    }

    @Test
    void aCrawlIsMarkedAndLeftOutOfTheQuietTable() {
        String markdown = BenchReport.markdown(RESULTS);
        String gateway = "| gateway/local (32×16, batches of 16) | ";
        assertEquals("memcached ‡", row(markdown, gateway + "3 | memcached ‡ |").get(2));
        assertEquals("gateway/local", row(markdown, gateway + "3 | gateway/local |").get(2));
        assertEquals(List.of("| 32x16 | gateway/local | memcached | 1.20 | 1.20 | 1.20 |"), ratioTable(markdown,
                "p99 (only the rounds without a stall and without a crawl of memcached's in either server's run)"));
        assertEquals(List.of("| 32x16 | gateway/local | memcached | 2.00, 3.00, 1.00 | 2.00 | 2.00 |"),
                ratioTable(markdown, "p99 from each request's send (the tool's lateness and full pipelines left out)"));
    }

    @Test
    void tlsIsComparedWithPlainAndTheGatewayWithMemcached() {
        String markdown = BenchReport.markdown(RESULTS);
        assertTrue(markdown.contains("| plain ops/s | TLS / plain | gateway / memcached |\n"), markdown);
        assertEquals(List.of("100000", "0.50", ""), row(markdown, "| memcached-tls |").subList(11, 14));
        assertEquals(List.of("120000", "0.50", "1.20"), row(markdown, "| gateway-tls |").subList(11, 14));
        assertFalse(BenchReport.markdown(results(List.of(), List.of())).contains("### 6. TLS"));
    }

    @Test
    void memoryIsInMibAndComparedWithMemcached() {
        String markdown = BenchReport.markdown(RESULTS);
        assertEquals(List.of("memcached", "1000", "2", "100", "", "", "", ""), row(markdown, "| memcached | 1000 |"));
        assertEquals(List.of("gateway", "1000", "4", "200", "2.00", "50", "150", "1.50"),
                row(markdown, "| gateway | 1000 |"));
    }

    @Test
    void whatWasNotRunIsSaid() {
        String markdown = BenchReport.markdown(RESULTS);
        assertTrue(markdown.contains("\nNot run, to stay within 450s: TLS at 32x1; the memory part.\n\n"), markdown);
        assertTrue(markdown.endsWith("\nMeasured in 321s (start-up included, build excluded).\n"), markdown);
        assertFalse(BenchReport.markdown(results(TLS, List.of())).contains("Not run"));
    }

    @Test
    void theHeadingNamesTheMachineAndTheSettings() {
        String markdown = BenchReport.markdown(RESULTS);
        assertTrue(markdown.startsWith("## bin/bench, 2026-11-29 06:10 UTC\n\n- machine: 4 CPUs (Test CPU), 8 GiB,"
                + " Linux 6.1.0; load average 0.10 at the start, 0.20 at the end\n"), markdown);
        assertTrue(markdown.contains("`io_transport = auto` (epoll)\n- memcached 1.6.21 (`-t 3 -m 1024`),"
                + " nutcracker-0.5.0, memaslap v1.0 (memaslap)\n"), markdown);
        assertTrue(markdown.contains(", 3s a run, 2 round(s), after 2 warm-up runs"), markdown);
    }

    @Test
    void resultsJsonHoldsTheResults(@TempDir Path out) throws Exception {
        BenchReport.write(RESULTS, out.resolve("bench"));
        assertEquals(BenchReport.markdown(RESULTS), Files.readString(out.resolve("bench/results.md")));
        ObjectMapper mapper = new ObjectMapper();
        JsonNode json = mapper.readTree(out.resolve("bench/results.json").toFile());
        assertEquals(2, json.path("settings").path("rounds").asInt());
        assertEquals("gateway/local", json.path("tool").path(1).path("target").asText());
        assertTrue(json.path("tool").path(6).path("opsPerSecond").isNull());
        assertEquals(30_000, json.path("half").path(3).path("figures").path("p999Us").asLong());
        assertEquals("round-trips", json.path("load").path(0).path("figures").path("cpu").path("limit").asText());
        assertEquals(2, json.path("skipped").size());
        assertEquals(RESULTS, mapper.readValue(out.resolve("bench/results.json").toFile(), Results.class));
    }
}
