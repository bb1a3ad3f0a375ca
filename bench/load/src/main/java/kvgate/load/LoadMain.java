package kvgate.load;

import io.netty.util.ResourceLeakDetector;

/** {@code java -jar kvgate-load.jar --protocol=binary --port=11211 ...}: one run, its JSON line on stdout. */
public final class LoadMain {
    private LoadMain() {
    }

    public static void main(String[] args) {
        if (args.length == 1 && (args[0].equals("--help") || args[0].equals("-h"))) {
            System.out.println(LoadOptions.USAGE);
            return;
        }
        if (System.getProperty("io.netty.leakDetection.level") == null) {
            // Few buffers are sampled, so the detector's code is compiled late, in the measured period: 19-37
            // compilations there with it, 9-13 without, each taking the generator's core from its event loop. The
            // tests run the generator's code with the detector at its strictest; -Dio.netty.leakDetection.level
            // turns it back on here.
            ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.DISABLED);
        }
        LoadOptions options;
        try {
            options = LoadOptions.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("kvgate-load: " + e.getMessage());
            System.err.println(LoadOptions.USAGE);
            System.exit(2);
            return;
        }
        try {
            Report report = LoadRun.run(options);
            System.out.println(report.json());
            System.err.print(report.summary());
            System.exit(report.errors() > 0 ? 1 : 0);
        } catch (Exception e) {
            System.err.println("kvgate-load: " + e.getMessage());
            System.exit(1);
        }
    }
}
