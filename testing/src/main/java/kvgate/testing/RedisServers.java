package kvgate.testing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Real redis-server processes on loopback ports, in a temporary directory, persisting nothing: one standalone
 * server (which may listen on a Unix domain socket too), or the masters of a Redis Cluster with the slots spread
 * evenly over them (formed here with CLUSTER ADDSLOTSRANGE and CLUSTER MEET through redis-cli).
 */
public final class RedisServers implements BackendServers {
    private final boolean cluster;
    private final int[] ports;
    private final int[] busPorts;
    private final Process[] processes;
    private final Path directory;
    /** The standalone server's Unix domain socket, which the gateway is then given; null: none. */
    private Path socket;

    private RedisServers(boolean cluster, int count) throws IOException {
        this.cluster = cluster;
        this.ports = new int[count];
        this.busPorts = new int[count];
        this.processes = new Process[count];
        this.directory = Files.createTempDirectory("kvgate-redis");
    }

    /** One standalone server. */
    public static RedisServers standalone() throws Exception {
        return start(false, 1);
    }

    /**
     * One standalone server listening on a Unix domain socket as well as its port: the gateway's settings name the
     * socket ({@code redis-socket://}), {@link #cli} still reaches the port.
     */
    public static RedisServers standaloneOnUnixSocket() throws Exception {
        RedisServers servers = new RedisServers(false, 1);
        servers.socket = servers.directory.resolve("redis.sock");
        return servers.started();
    }

    /** A cluster of {@code masters} masters without replicas; returns once every node reports the cluster ok. */
    public static RedisServers cluster(int masters) throws Exception {
        return cluster(masters, false);
    }

    /**
     * A cluster of {@code masters} masters, each with one replica (servers {@code masters} to
     * {@code 2 * masters - 1}, replica {@code masters + i} of master {@code i}); returns once the cluster is ok and
     * every replica replicates.
     */
    public static RedisServers clusterWithReplicas(int masters) throws Exception {
        return cluster(masters, true);
    }

    private static RedisServers cluster(int masters, boolean replicas) throws Exception {
        RedisServers servers = start(true, replicas ? 2 * masters : masters);
        try {
            servers.formCluster(masters);
        } catch (Exception | AssertionError e) {
            servers.close();
            throw e;
        }
        return servers;
    }

    private static RedisServers start(boolean cluster, int count) throws Exception {
        return new RedisServers(cluster, count).started();
    }

    private RedisServers started() throws Exception {
        try {
            for (int i = 0; i < ports.length; i++) {
                ports[i] = Ports.free();
                busPorts[i] = Ports.free();
                startServer(i);
            }
        } catch (Exception | AssertionError e) {
            close();
            throw e;
        }
        return this;
    }

    private void startServer(int index) throws Exception {
        List<String> command = new ArrayList<>(List.of("redis-server", "--bind", "127.0.0.1",
                "--port", Integer.toString(ports[index]), "--save", "", "--appendonly", "no",
                "--dir", directory.toString()));
        if (socket != null) {
            command.addAll(List.of("--unixsocket", socket.toString(), "--unixsocketperm", "700"));
        }
        if (cluster) {
            command.addAll(List.of("--cluster-enabled", "yes", "--cluster-port", Integer.toString(busPorts[index]),
                    "--cluster-config-file", "nodes-" + ports[index] + ".conf", "--cluster-node-timeout", "2000"));
        }
        processes[index] = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .start();
        Ports.awaitListening(ports[index], processes[index], "redis-server on port " + ports[index], 10_000);
    }

    private void formCluster(int masters) throws Exception {
        int count = ports.length;
        for (int i = 0; i < masters; i++) {
            int first = 16384 * i / masters;
            int last = 16384 * (i + 1) / masters - 1;
            cli(ports[i], "CLUSTER", "ADDSLOTSRANGE", Integer.toString(first), Integer.toString(last));
        }
        for (int i = 1; i < count; i++) {
            cli(ports[0], "CLUSTER", "MEET", "127.0.0.1", Integer.toString(ports[i]), Integer.toString(busPorts[i]));
        }
        long deadline = System.currentTimeMillis() + 20_000;
        for (int i = masters; i < count; i++) {
            String master = cli(ports[i - masters], "CLUSTER", "MYID").strip();
            // The replica must know the master before it can follow it.
            while (!cli(ports[i], "CLUSTER", "REPLICATE", master).startsWith("OK")) {
                if (System.currentTimeMillis() > deadline) {
                    throw new AssertionError("server " + i + " would not replicate " + master);
                }
                Thread.sleep(50);
            }
        }
        for (int port : ports) {
            while (!cli(port, "CLUSTER", "INFO").contains("cluster_state:ok")
                    || !cli(port, "CLUSTER", "INFO").contains("cluster_known_nodes:" + count)) {
                if (System.currentTimeMillis() > deadline) {
                    throw new AssertionError("the cluster did not form: " + cli(port, "CLUSTER", "INFO"));
                }
                Thread.sleep(50);
            }
        }
        for (int i = masters; i < count; i++) {
            while (!cli(ports[i], "INFO", "replication").contains("master_link_status:up")) {
                if (System.currentTimeMillis() > deadline) {
                    throw new AssertionError("replica " + i + " is not in sync");
                }
                Thread.sleep(50);
            }
        }
    }

    /** Runs one command with redis-cli against the server on {@code port}; returns its output. */
    public static String cli(int port, String... arguments) throws Exception {
        List<String> command = new ArrayList<>(List.of("redis-cli", "-h", "127.0.0.1", "-p", Integer.toString(port)));
        command.addAll(List.of(arguments));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError("redis-cli did not finish: " + command);
        }
        return output;
    }

    public int port(int index) {
        return ports[index];
    }

    /** The standalone server's Unix domain socket; null when it has none. */
    public Path socket() {
        return socket;
    }

    /** Whether server {@code index} reports itself a master (a replica promoted by a failover does). */
    public boolean isMaster(int index) throws Exception {
        return cli(ports[index], "ROLE").startsWith("master");
    }

    /**
     * The gateway settings that put its data on these servers. The command timeout is generous: the protocol suites
     * check what replies say, and a pipeline of thousands of requests on a busy test machine must not time out
     * (tests of timeouts set their own).
     */
    @Override
    public Map<String, String> backendSettings() {
        if (!cluster) {
            String uri = socket != null ? "redis-socket://" + socket : "redis://127.0.0.1:" + ports[0];
            return Map.of("backend", "redis", "redis.uri", uri, "redis.timeout_ms", "5000");
        }
        List<String> nodes = new ArrayList<>();
        for (int port : ports) { // replicas too: any node tells the topology
            nodes.add("127.0.0.1:" + port);
        }
        return Map.of("backend", "redis", "redis.cluster", String.join(",", nodes), "redis.timeout_ms", "5000");
    }

    /** Kills one server (SIGKILL). */
    public void kill(int index) throws InterruptedException {
        processes[index].destroyForcibly();
        processes[index].waitFor(10, TimeUnit.SECONDS);
    }

    /** Stops one server without closing its sockets (SIGSTOP): it reads nothing and answers nothing. */
    public void pause(int index) throws Exception {
        signal(index, "-STOP");
    }

    /** Lets a paused server run again (SIGCONT); it then handles what it was sent meanwhile. */
    public void resume(int index) throws Exception {
        signal(index, "-CONT");
    }

    private void signal(int index, String signal) throws Exception {
        Process kill = new ProcessBuilder("kill", signal, Long.toString(processes[index].pid()))
                .redirectErrorStream(true).start();
        if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
            throw new AssertionError("kill " + signal + " failed for redis-server " + index);
        }
    }

    /** Starts a killed standalone server again on its port, empty. */
    public void restart(int index) throws Exception {
        startServer(index);
    }

    @Override
    public void close() throws Exception {
        for (Process process : processes) {
            if (process != null && process.isAlive()) {
                process.destroyForcibly();
                process.waitFor(10, TimeUnit.SECONDS);
            }
        }
        try (Stream<Path> files = Files.walk(directory)) {
            for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(file);
            }
        }
    }
}
