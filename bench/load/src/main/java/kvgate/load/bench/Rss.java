package kvgate.load.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** A process's resident size, and a JVM's heap after a full collection, for part 4. */
final class Rss {
    private Rss() {
    }

    /** VmRSS of a process, in KiB; 0 when it cannot be read. */
    static long of(long pid) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
                if (line.startsWith("VmRSS:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", ""));
                }
            }
        } catch (IOException | RuntimeException e) {
            // gone
        }
        return 0;
    }

    /** Asks a JVM for a full collection (jcmd GC.run); false when jcmd is not there or could not reach it. */
    static boolean collect(long pid) {
        return !Machine.output("jcmd", Long.toString(pid), "GC.run").equals("?");
    }

    /**
     * What a JVM's heap holds, in KiB: the heap's lines of GC.heap_info (G1: one; serial and parallel: one per
     * generation) each say "used NK"; Metaspace's do not count. Null when it says nothing of the heap.
     */
    static Long heapUsed(long pid) {
        String info = Machine.output("jcmd", Long.toString(pid), "GC.heap_info");
        long sum = 0;
        boolean found = false;
        for (String line : info.split("\n")) {
            if (line.contains("Metaspace") || line.contains("class space")) {
                continue;
            }
            String[] words = line.trim().split("[\\s,]+");
            for (int i = 0; i < words.length - 1; i++) {
                if (words[i].equals("used") && words[i + 1].matches("[0-9]+K")) {
                    sum += Long.parseLong(words[i + 1].substring(0, words[i + 1].length() - 1));
                    found = true;
                }
            }
        }
        return found ? sum : null;
    }
}
