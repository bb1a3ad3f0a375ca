package kvgate.load;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The same load run against several targets, in rounds, in one process. Comparing two servers' tails takes many
 * runs of each, in alternating order, so that the machine's moments weigh on both alike; in one process the
 * generator is compiled once, so every run after the first needs only a short warm-up, and more runs fit in the
 * same time than with a process (and its compilation, on the core the event loops need) per run.
 *
 * @param targets one run's options per target, in the order of the odd rounds
 * @param rounds how many times each target is run
 * @param rewarm the warm-up of every run but the first, in seconds (the first has its target's own)
 */
record Series(List<LoadOptions> targets, int rounds, double rewarm) {

    /** One run of the series: its round (from 1) and its options. */
    record Run(int round, LoadOptions options) {
    }

    Series {
        targets = List.copyOf(targets);
        if (targets.isEmpty() || rounds < 1 || rewarm < 0) {
            throw new IllegalArgumentException("expected a target, --rounds above 0 and --rewarm 0 or more");
        }
        if (targets.size() > 1 && targets.get(0).fill() > 0) {
            throw new IllegalArgumentException("expected one --port with --fill");
        }
    }

    /**
     * Parses the arguments of {@link LoadOptions#USAGE}: {@code --port} (or {@code --socket}) may list several
     * targets, {@code --watch} a list per target (separated by {@code ;}), and {@code --rounds} and
     * {@code --rewarm} say how often each runs and how long the warm-up of the runs after the first is.
     */
    static Series parse(String... args) {
        Map<String, String> given = LoadOptions.arguments(args);
        LoadOptions.Arguments series = new LoadOptions.Arguments(given);
        // The targets: ports, or Unix sockets (both given, each run's options refuse them).
        String by = given.containsKey("socket") ? "socket" : "port";
        String[] ports = series.text(by, "").split(",", -1);
        String watched = series.text("watch", "");
        String[] watches = watched.isEmpty() ? new String[ports.length] : watched.split(";", -1);
        if (watches.length != ports.length) {
            throw new IllegalArgumentException("expected a --watch list per --" + by + " (" + ports.length
                    + "), not " + watches.length);
        }
        int rounds = series.integer("rounds", 1);
        boolean rewarmGiven = given.containsKey("rewarm");
        double rewarm = series.decimal("rewarm", 0);
        List<LoadOptions> targets = new ArrayList<>();
        for (int i = 0; i < ports.length; i++) {
            Map<String, String> one = new HashMap<>(given);
            one.put(by, ports[i]);
            if (watches[i] != null) {
                one.put("watch", watches[i]);
            }
            targets.add(LoadOptions.parse(one));
        }
        return new Series(targets, rounds, rewarmGiven ? rewarm : targets.get(0).warmup());
    }

    /** The runs in order: each round every target once, in order in odd rounds and reversed in even ones. */
    List<Run> runs() {
        List<Run> runs = new ArrayList<>();
        for (int round = 1; round <= rounds; round++) {
            List<LoadOptions> order = new ArrayList<>(targets);
            if (round % 2 == 0) {
                Collections.reverse(order);
            }
            for (LoadOptions options : order) {
                // The very first run compiles the generator and warms up in full. A target's first run stores its
                // keys; its later runs find them stored, and go from one run's load to the next without a fill
                // between, whose branches would have the compiler make the load's code anew in each run.
                runs.add(new Run(round, runs.isEmpty() ? options
                        : options.rerun(rewarm, round == 1 && options.prefill())));
            }
        }
        return runs;
    }
}
