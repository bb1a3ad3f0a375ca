package kvgate.load.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/** What the report says of the machine and the programs measured: read from /proc, or as a command prints it. */
final class Machine {
    private Machine() {
    }

    /**
     * The cores the bench may use, as nproc counts them (the CPUs this process may run on): what /proc/stat's
     * totals and the taskset ranges are about, where the JVM's own count would also take a container's quota off.
     */
    static int cores() {
        try {
            return Integer.parseInt(output("nproc"));
        } catch (NumberFormatException e) {
            return Runtime.getRuntime().availableProcessors();
        }
    }

    static String loadAverage() {
        try {
            String[] fields = Files.readString(Path.of("/proc/loadavg")).trim().split(" ");
            return fields[0] + " " + fields[1] + " " + fields[2];
        } catch (IOException | RuntimeException e) {
            return "?";
        }
    }

    static String cpuModel() {
        try {
            return Files.readAllLines(Path.of("/proc/cpuinfo")).stream().filter(line -> line.startsWith("model name"))
                    .map(line -> line.substring(line.indexOf(':') + 1).trim()).findFirst().orElse("unknown");
        } catch (IOException e) {
            return "unknown";
        }
    }

    static String memory() {
        try {
            return Files.readAllLines(Path.of("/proc/meminfo")).stream().filter(line -> line.startsWith("MemTotal"))
                    .map(line -> String.format(Locale.ROOT, "%.0f GiB",
                            Long.parseLong(line.replaceAll("[^0-9]", "")) / 1048576.0))
                    .findFirst().orElse("?");
        } catch (IOException | RuntimeException e) {
            return "?";
        }
    }

    /** What a command printed (both streams), "?" when it could not run, failed, or took over 30 s. */
    static String output(String... command) {
        return output(false, command);
    }

    /** The same, whatever the command's exit status: memaslap exits with one of its own after printing. */
    static String outputAnyExit(String... command) {
        return output(true, command);
    }

    private static String output(boolean anyExit, String... command) {
        Path printed = null;
        try {
            // to a file, not a pipe: reading a pipe to its end would wait out a command that hangs
            printed = Files.createTempFile("kvgate-bench", ".out");
            Process process = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(printed.toFile()).start();
            if (!process.waitFor(30, java.util.concurrent.TimeUnit.SECONDS)) {
                process.destroyForcibly();
                return "?";
            }
            return anyExit || process.exitValue() == 0
                    ? new String(Files.readAllBytes(printed), StandardCharsets.UTF_8).trim() : "?";
        } catch (IOException e) {
            return "?";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "?";
        } finally {
            if (printed != null) {
                try {
                    Files.deleteIfExists(printed);
                } catch (IOException e) {
                    // a temporary file left behind
                }
            }
        }
    }

    static String firstLine(String text) {
        int end = text.indexOf('\n');
        return end < 0 ? text : text.substring(0, end);
    }
}
