package kvgate.load;

import io.netty.channel.EventLoopGroup;
import io.netty.util.ResourceLeakDetector;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * {@code java -jar kvgate-load.jar --protocol=binary --port=11211 ...}: one run, or a {@link Series} of them, each
 * run's JSON line on stdout as it ends (with its round, in a series of more than one run).
 */
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
        Series series;
        try {
            series = Series.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("kvgate-load: " + e.getMessage());
            System.err.println(LoadOptions.USAGE);
            System.exit(2);
            return;
        }
        List<Series.Run> runs = series.runs();
        boolean failed = false;
        EventLoopGroup group = LoadRun.newGroup(series.targets().get(0).threads());
        for (Series.Run run : runs) {
            try {
                Report report = LoadRun.run(run.options(), group);
                String json = report.json();
                // A run of a series says which round it was; its port (or socket) says which target.
                System.out.println(runs.size() == 1 ? json : "{\"round\":" + run.round() + "," + json.substring(1));
                System.out.flush();
                System.err.print(report.summary());
                failed |= report.errors() > 0;
            } catch (Exception e) {
                System.err.println("kvgate-load: " + run.options().target() + ", round " + run.round() + ": "
                        + e.getMessage());
                failed = true;
            }
        }
        group.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
        System.exit(failed ? 1 : 0);
    }
}
