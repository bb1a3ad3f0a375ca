package kvgate.testing;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/** Real memcached processes on loopback ports, for the memcached backend's tests. */
public final class MemcachedServers implements BackendServers {
    private final int[] ports;
    private final Process[] processes;

    private MemcachedServers(int count) {
        ports = new int[count];
        processes = new Process[count];
    }

    /** Starts {@code count} memcached servers, each on a free port; returns once all of them listen. */
    public static MemcachedServers start(int count) throws Exception {
        MemcachedServers servers = new MemcachedServers(count);
        try {
            for (int i = 0; i < count; i++) {
                servers.ports[i] = Ports.free();
                servers.startServer(i);
            }
        } catch (Exception | AssertionError e) {
            servers.close();
            throw e;
        }
        return servers;
    }

    private void startServer(int index) throws Exception {
        processes[index] = new ProcessBuilder("memcached", "-l", "127.0.0.1", "-p", Integer.toString(ports[index]),
                "-U", "0", "-m", "64", "-I", "2m", "-t", "1",
                // memcached refuses to run as root unless told which user to be; as anyone else this is a no-op.
                "-u", System.getProperty("user.name"))
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .start();
        Ports.awaitListening(ports[index], processes[index], "memcached on port " + ports[index], 10_000);
    }

    public int port(int index) {
        return ports[index];
    }

    /** The value of {@code memcached.servers} for this pool. */
    public String serverList() {
        List<String> servers = new ArrayList<>();
        for (int port : ports) {
            servers.add("127.0.0.1:" + port);
        }
        return servers.stream().collect(Collectors.joining(","));
    }

    /** The settings of a backend instance named {@code name} on this pool ({@code backends.<name>.*}). */
    public Map<String, String> instance(String name) {
        return Map.of("backends." + name + ".type", "memcached", "backends." + name + ".servers", serverList());
    }

    /** The gateway settings that put its data on this pool. */
    @Override
    public Map<String, String> backendSettings() {
        return Map.of("backend", "memcached", "memcached.servers", serverList());
    }

    /** Kills one server (SIGKILL). */
    public void kill(int index) throws InterruptedException {
        processes[index].destroyForcibly();
        processes[index].waitFor(10, TimeUnit.SECONDS);
    }

    /**
     * Stops (SIGSTOP) or continues (SIGCONT) one server: a stopped server keeps its connections and accepts bytes
     * into its socket buffers, but answers nothing, as a hung host would.
     */
    public void pause(int index, boolean paused) throws Exception {
        Process kill = new ProcessBuilder("kill", paused ? "-STOP" : "-CONT",
                Long.toString(processes[index].pid())).inheritIO().start();
        if (kill.waitFor() != 0) {
            throw new IllegalStateException("kill " + (paused ? "-STOP" : "-CONT") + " failed");
        }
    }

    /** Starts a killed server again on its port, empty. */
    public void restart(int index) throws Exception {
        startServer(index);
    }

    @Override
    public void close() throws InterruptedException {
        for (Process process : processes) {
            if (process != null && process.isAlive()) {
                process.destroyForcibly();
                process.waitFor(10, TimeUnit.SECONDS);
            }
        }
    }
}
