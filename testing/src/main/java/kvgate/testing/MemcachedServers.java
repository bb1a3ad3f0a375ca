package kvgate.testing;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/** Real memcached processes on loopback ports or Unix domain sockets, for the memcached backend's tests. */
public final class MemcachedServers implements BackendServers {
    private final int[] ports;
    /** Each server's Unix domain socket (memcached -s, which then listens on no port), or null: a TCP port. */
    private final Path[] sockets;
    private final Process[] processes;
    /** Each server's Cyrus SASL configuration directory when it requires authentication (-S), else null. */
    private final Path[] saslConfigs;
    /** Arguments every server of the pool is started with besides the usual ones. */
    private List<String> extraArguments = List.of();

    private MemcachedServers(int count) {
        ports = new int[count];
        sockets = new Path[count];
        processes = new Process[count];
        saslConfigs = new Path[count];
    }

    /** Starts {@code count} memcached servers, each on a free port; returns once all of them listen. */
    public static MemcachedServers start(int count) throws Exception {
        return started(count, (servers, index) -> {
        });
    }

    /** Starts {@code count} memcached servers with {@code arguments} besides the usual ones ({@code -X}, ...). */
    public static MemcachedServers startWith(int count, String... arguments) throws Exception {
        return started(count, (servers, index) -> servers.extraArguments = List.of(arguments));
    }

    /**
     * Starts one memcached server per entry of {@code mechanisms}, each requiring SASL authentication (-S) of
     * {@code user} with {@code password}, offering the mechanisms of its entry (Cyrus SASL's {@code mech_list}, for
     * example "plain" or "cram-md5"), with a password database made by {@code saslpasswd2} under {@code directory}.
     */
    public static MemcachedServers startWithSasl(Path directory, String user, String password, String... mechanisms)
            throws Exception {
        return started(mechanisms.length, (servers, index) -> servers.saslConfigs[index] =
                saslConfig(directory.resolve("sasl-" + index), user, password, mechanisms[index]));
    }

    /** Starts {@code count} memcached servers, each on a Unix domain socket of its own under {@code directory}. */
    public static MemcachedServers startOnUnixSockets(Path directory, int count) throws Exception {
        return started(count, (servers, index) -> servers.sockets[index] = directory.resolve("memcached-" + index
                + ".sock"));
    }

    /** What a server needs before it starts. */
    private interface Preparation {
        void prepare(MemcachedServers servers, int index) throws Exception;
    }

    /** Starts {@code count} servers, each prepared first; closes those started when one fails. */
    private static MemcachedServers started(int count, Preparation preparation) throws Exception {
        MemcachedServers servers = new MemcachedServers(count);
        try {
            for (int i = 0; i < count; i++) {
                preparation.prepare(servers, i);
                if (servers.sockets[i] == null) {
                    servers.ports[i] = Ports.free();
                }
                servers.startServer(i);
            }
        } catch (Exception | AssertionError e) {
            servers.close();
            throw e;
        }
        return servers;
    }

    /** A Cyrus SASL configuration directory for memcached: a password database of one user, the mechanisms. */
    private static Path saslConfig(Path directory, String user, String password, String mechanisms)
            throws Exception {
        Path config = Files.createDirectories(directory);
        Path database = config.resolve("sasldb2");
        Process create = new ProcessBuilder(saslpasswd2(), "-p", "-c", "-a", "memcached", "-f",
                database.toString(), user).redirectErrorStream(true).start();
        try (OutputStream in = create.getOutputStream()) {
            in.write(password.getBytes(StandardCharsets.UTF_8));
        }
        String output = new String(create.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (create.waitFor() != 0) {
            throw new IllegalStateException("saslpasswd2 failed: " + output);
        }
        // Cyrus SASL reads <application>.conf from SASL_CONF_PATH; memcached's application name is memcached.
        Files.writeString(config.resolve("memcached.conf"), "mech_list: " + mechanisms + "\nsasldb_path: " + database
                + "\n");
        return config;
    }

    /** Debian puts saslpasswd2 in /usr/sbin, which is not on every user's path. */
    private static String saslpasswd2() {
        return Files.isExecutable(Path.of("/usr/sbin/saslpasswd2")) ? "/usr/sbin/saslpasswd2" : "saslpasswd2";
    }

    private void startServer(int index) throws Exception {
        List<String> command = new ArrayList<>(List.of("memcached", "-U", "0", "-m", "64", "-I", "2m", "-t", "1",
                // memcached refuses to run as root unless told which user to be; as anyone else this is a no-op.
                "-u", System.getProperty("user.name")));
        if (sockets[index] == null) {
            command.addAll(List.of("-l", "127.0.0.1", "-p", Integer.toString(ports[index])));
        } else {
            Files.deleteIfExists(sockets[index]); // a killed server leaves its socket behind, and bind would refuse
            command.addAll(List.of("-s", sockets[index].toString(), "-a", "0600"));
        }
        command.addAll(extraArguments);
        ProcessBuilder builder = new ProcessBuilder(command);
        if (saslConfigs[index] != null) {
            command.add("-S");
            builder.command(command).environment().put("SASL_CONF_PATH", saslConfigs[index].toString());
        }
        processes[index] = builder
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .start();
        if (sockets[index] == null) {
            Ports.awaitListening(ports[index], processes[index], "memcached on port " + ports[index], 10_000);
        } else {
            Ports.awaitListening(sockets[index], processes[index], "memcached on " + sockets[index], 10_000);
        }
    }

    public int port(int index) {
        return ports[index];
    }

    /** A client straight to server {@code index}, on its port or its socket. */
    public BinaryClient client(int index) throws IOException {
        return sockets[index] != null ? new BinaryClient(sockets[index]) : new BinaryClient(ports[index]);
    }

    /** How many of the keys {@code prefix}0 to {@code prefix}(count - 1) server {@code index} holds, asked directly. */
    public int holding(int index, String prefix, int count) throws IOException {
        int held = 0;
        try (BinaryClient direct = client(index)) {
            for (int i = 0; i < count; i++) {
                held += direct.get(prefix + i).status() == 0 ? 1 : 0;
            }
        }
        return held;
    }

    /** The value of {@code memcached.servers} for this pool. */
    public String serverList() {
        List<String> servers = new ArrayList<>();
        for (int i = 0; i < ports.length; i++) {
            servers.add(sockets[i] != null ? sockets[i].toString() : "127.0.0.1:" + ports[i]);
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
