package kvgate.load;

/** {@code java -jar kvgate-load.jar --protocol=binary --port=11211 ...}: one run, its JSON line on stdout. */
public final class LoadMain {
    private LoadMain() {
    }

    public static void main(String[] args) {
        if (args.length == 1 && (args[0].equals("--help") || args[0].equals("-h"))) {
            System.out.println(LoadOptions.USAGE);
            return;
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
