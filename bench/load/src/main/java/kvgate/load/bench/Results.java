package kvgate.load.bench;

import java.util.List;

/** Everything one bench run measured, part by part, as the report shows it and results.json holds it. */
public record Results(BenchSettings settings, Setup setup, List<ToolRow> tool, List<LoadRow> load,
                      List<HalfRow> half, List<MemoryRow> memory, List<LoadRow> protocols, List<LoadRow> tls,
                      List<String> skipped) {
}
