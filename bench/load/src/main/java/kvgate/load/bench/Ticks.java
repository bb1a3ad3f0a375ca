package kvgate.load.bench;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import kvgate.load.ProcCpu;

/**
 * CPU time read from Linux's /proc, in clock ticks: of processes and threads, of a JVM's JIT compiler threads, of
 * the machine, and of every user process that is not the bench's own ("other load").
 */
final class Ticks {
    private Ticks() {
    }

    /**
     * A JVM's JIT compiler threads, as "PID/TID" (empty for a process that is no JVM). A JVM still compiling (its
     * hot paths change when connections open and close) is not at its steady state; the JIT column shows how far
     * from it a run was.
     */
    static List<String> jitThreads(long pid) {
        List<String> found = new ArrayList<>();
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc", Long.toString(pid), "task"))) {
            for (Path task : tasks) {
                String comm = Files.readString(task.resolve("comm")).strip();
                if (comm.startsWith("C1 CompilerThre") || comm.startsWith("C2 CompilerThre")) {
                    found.add(pid + "/" + task.getFileName());
                }
            }
        } catch (IOException e) {
            // gone: none
        }
        return found;
    }

    /** The ticks of these threads together; null when there are none (no JVM). */
    static Long sum(List<String> threads) {
        if (threads.isEmpty()) {
            return null;
        }
        long sum = 0;
        for (String thread : threads) {
            sum += Math.max(0, ProcCpu.process(thread));
        }
        return sum;
    }

    /**
     * The ticks of every user process but {@code ours} (kernel threads, children of kthreadd, left out), by pid: a
     * reading to compare a later one with ({@link #foreignSince}).
     */
    static Map<Long, Long> foreign(Set<Long> ours) {
        Map<Long, Long> used = new HashMap<>();
        try (DirectoryStream<Path> processes = Files.newDirectoryStream(Path.of("/proc"), "[0-9]*")) {
            for (Path process : processes) {
                long pid = Long.parseLong(process.getFileName().toString());
                if (ours.contains(pid) || pid == 2) {
                    continue;
                }
                try {
                    String[] fields = ProcCpu.fields(Files.readString(process.resolve("stat")));
                    if (fields[1].equals("2")) {
                        continue; // a kernel thread
                    }
                    used.put(pid, ProcCpu.used(fields));
                } catch (IOException | RuntimeException e) {
                    // ended meanwhile
                }
            }
        } catch (IOException e) {
            // no /proc: none
        }
        return used;
    }

    /**
     * What other processes used since {@code before}: a process started meanwhile counts from zero, one that ended
     * is left out (its last ticks can no longer be read), a pid reused meanwhile that looks negative counts nothing.
     */
    static long foreignSince(Map<Long, Long> before, Set<Long> ours) {
        long sum = 0;
        for (Map.Entry<Long, Long> now : foreign(ours).entrySet()) {
            long used = now.getValue() - before.getOrDefault(now.getKey(), 0L);
            if (used > 0) {
                sum += used;
            }
        }
        return sum;
    }

    /** Percent of one core that {@code ticks} are over {@code seconds}. */
    static double percent(long ticks, double seconds) {
        return seconds <= 0 ? 0 : ticks / ProcCpu.TICKS_PER_SECOND / seconds * 100;
    }
}
