package kvgate.load.bench;

/**
 * CPU use over one measured run, in percent of one core, and what limited the run.
 *
 * @param tool the load tool's
 * @param server the target's: memcached, a gateway's JVM or nutcracker
 * @param backend the memcached behind a proxy; null for a target without one
 * @param other every other user process on the machine
 * @param jit the server's JIT compiler threads (part of {@code server}); null for a server that is no JVM
 * @param limit {@code tool}, {@code server} or {@code backend} when it used 90% or more of the cores it can use;
 *     {@code CPU,tool}, {@code CPU,server} or {@code CPU,other-load} when every core was busy (the biggest user
 *     named); {@code round-trips} otherwise
 */
public record Cpu(double tool, double server, Double backend, double other, Double jit, String limit) {

    /**
     * What limited a run, from its CPU shares: a process at 90% of the cores it can use, else every core busy (the
     * biggest user named), else the round trips.
     *
     * @param toolCores the cores the tool can use (its threads)
     * @param serverCores the cores the server can use
     * @param backendCores the cores the backend can use
     * @param machineCores the machine's cores
     * @param busy what the machine's processes and interrupts used, percent of one core
     */
    public static String limit(double tool, double server, Double backend, double other, double busy, int toolCores,
                               int serverCores, int backendCores, int machineCores) {
        double behind = backend == null ? 0 : backend;
        if (tool >= 90.0 * toolCores) {
            return "tool";
        } else if (server >= 90.0 * serverCores) {
            return "server";
        } else if (backend != null && backend >= 90.0 * backendCores) {
            return "backend";
        } else if (busy >= 90.0 * machineCores) {
            if (tool > server + behind && tool > other) {
                return "CPU,tool";
            }
            return other > server + behind ? "CPU,other-load" : "CPU,server";
        }
        return "round-trips";
    }

    /** The limit as the tables show it: "CPU, other load" for "CPU,other-load". */
    public String limitText() {
        return limit.replace(",", ", ").replace('-', ' ');
    }
}
