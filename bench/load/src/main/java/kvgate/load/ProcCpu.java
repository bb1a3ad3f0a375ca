package kvgate.load;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * CPU time from Linux's /proc, in clock ticks of 1/100 s (USER_HZ, 100 on every Linux the generator runs on):
 * of other processes watched during the measured period (the server, its backend), and of the whole machine.
 * Elsewhere, or for a process that is gone, -1.
 */
public final class ProcCpu {
    public static final double TICKS_PER_SECOND = 100;

    private ProcCpu() {
    }

    /**
     * utime + stime of a process, all its threads ({@code PID}), or of one of its threads ({@code PID/TID}: /proc/PID
     * alone would give a thread's id the whole process's figures).
     */
    public static long process(String id) {
        int slash = id.indexOf('/');
        Path path = slash < 0 ? Path.of("/proc", id, "stat")
                : Path.of("/proc", id.substring(0, slash), "task", id.substring(slash + 1), "stat");
        try {
            return used(fields(Files.readString(path)));
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    /**
     * The fields of a /proc stat line after the command name, from the state on (the name, in parentheses, may
     * hold spaces: fields are counted after its closing one).
     */
    public static String[] fields(String stat) {
        return stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    }

    /** utime + stime from {@link #fields}. */
    public static long used(String[] fields) {
        return Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
    }

    /**
     * What all CPUs had spent, in ticks, when read: on processes (user, nice, system, and steal, taken by the
     * hypervisor), and on interrupts (irq, softirq), charged to no process: loopback networking is mostly that.
     * Both from one reading; -1 each when unknown.
     */
    public record MachineTicks(long processes, long interrupts) {
    }

    /** The machine's {@link MachineTicks} now. */
    public static MachineTicks machine() {
        long[] f = machineFields();
        return f == null ? new MachineTicks(-1, -1) : new MachineTicks(f[1] + f[2] + f[3] + f[8], f[6] + f[7]);
    }

    private static long[] machineFields() {
        try {
            List<String> lines = Files.readAllLines(Path.of("/proc/stat"));
            String[] text = lines.get(0).trim().split("\\s+");
            long[] fields = new long[9];
            for (int i = 1; i < fields.length; i++) {
                fields[i] = Long.parseLong(text[i]);
            }
            return fields;
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /** Percent of one core used between two readings {@code seconds} apart; -1 when either is unknown. */
    public static double percent(long before, long after, double seconds) {
        if (before < 0 || after < 0 || seconds <= 0) {
            return -1;
        }
        return (after - before) / TICKS_PER_SECOND / seconds * 100;
    }
}
