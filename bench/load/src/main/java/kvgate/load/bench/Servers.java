package kvgate.load.bench;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.SSLSocketFactory;

/**
 * The processes a bench run starts (servers, and the load tool's runs), each with its output in a log file of its
 * own: pinned to the servers' cores or the tool's, awaited until they answer, and stopped, by their process ids, when
 * the run ends however it ends (a shutdown hook covers Ctrl-C and SIGTERM; once it has begun, nothing more starts).
 */
final class Servers implements AutoCloseable {
    private final Path logs;
    private final List<String> serverPin;
    private final List<String> toolPin;
    private final Map<Long, Started> running = new LinkedHashMap<>();
    private final Set<Integer> portsHandedOut = new HashSet<>();
    private final Thread stopAtExit = new Thread(this::stopAll, "bench-stop");
    /** Set once everything is being stopped: nothing is started after, so nothing outlives the run. */
    private boolean closing;
    /** Ports below the kernel's range for outgoing connections, which could take a port between its check and use. */
    private final int portsBelow = portsBelow();
    private final java.util.Random random = new java.util.Random();

    /** A process started, under the name its log and the report use. */
    record Started(String name, Process process, Path log) {
        long pid() {
            return process.pid();
        }

        boolean alive() {
            return process.isAlive();
        }
    }

    /**
     * @param logs where each process's output goes, as NAME.log
     * @param serverPin the taskset prefix that puts a server on its cores (empty: none)
     * @param toolPin the same for the load tool
     */
    Servers(Path logs, List<String> serverPin, List<String> toolPin) throws IOException {
        this.logs = Files.createDirectories(logs);
        this.serverPin = List.copyOf(serverPin);
        this.toolPin = List.copyOf(toolPin);
        Runtime.getRuntime().addShutdownHook(stopAtExit);
    }

    /** Starts a server on the servers' cores; {@code environment} adds to the inherited environment. */
    synchronized Started server(String name, List<String> command, Map<String, String> environment, Path directory)
            throws IOException {
        return start(name, serverPin, command, environment, directory, null);
    }

    /** Starts the load tool on its cores, its output in its log. */
    synchronized Started tool(String name, List<String> command) throws IOException {
        return tool(name, command, null);
    }

    /** Starts the load tool on its cores, its standard output to {@code out} (null: its log), its errors to its log. */
    synchronized Started tool(String name, List<String> command, Path out) throws IOException {
        return start(name, toolPin, command, Map.of(), null, out);
    }

    /** The processes running now, by id. */
    synchronized Set<Long> pids() {
        forgetEnded();
        return new HashSet<>(running.keySet());
    }

    /** Forgets the processes that have ended by themselves, as each run of the load tool does. */
    private void forgetEnded() {
        running.values().removeIf(started -> !started.alive());
    }

    /** @param out where standard output goes; null: to the log, with the errors */
    private Started start(String name, List<String> pin, List<String> command, Map<String, String> environment,
                          Path directory, Path out) throws IOException {
        List<String> pinned = new ArrayList<>(pin);
        pinned.addAll(command);
        Path log = logs.resolve(name.replace('/', '-') + ".log");
        ProcessBuilder builder = new ProcessBuilder(pinned);
        if (out == null) {
            builder.redirectErrorStream(true).redirectOutput(log.toFile());
        } else {
            builder.redirectOutput(out.toFile()).redirectError(log.toFile());
        }
        builder.environment().putAll(environment);
        if (directory != null) {
            builder.directory(Files.createDirectories(directory).toFile());
        }
        if (closing) {
            throw new IllegalStateException("the bench is stopping: " + name + " is not started");
        }
        Started started = new Started(name, builder.start(), log);
        running.put(started.pid(), started);
        return started;
    }

    /** The last lines of a process's output, for a message about it. */
    static String tail(Started started, int lines) {
        try {
            List<String> all = Files.readAllLines(started.log(), StandardCharsets.UTF_8);
            return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
        } catch (IOException e) {
            return "(no output: " + e.getMessage() + ")";
        }
    }

    /**
     * Waits until the server answers on {@code port} ({@code binary}: a noop; {@code text}: a get), for up to 30 s;
     * fails with its output if it stops or never answers.
     */
    static void await(Started server, int port, String protocol) throws InterruptedException {
        await(server, port, protocol, null);
    }

    /**
     * The same for a server that speaks TLS: {@code tls} makes the handshake with {@code tls}'s trust, then asks
     * the version in the text protocol.
     */
    static void await(Started server, int port, String protocol, SSLSocketFactory tls) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < deadline) {
            if (answers(port, protocol, tls)) {
                return;
            }
            if (!server.alive()) {
                break;
            }
            Thread.sleep(100);
        }
        throw new IllegalStateException(server.name() + " did not come up on port " + port + "; its output:\n"
                + tail(server, 20));
    }

    static boolean answers(int port, String protocol, SSLSocketFactory tls) {
        try (Socket plain = new Socket()) {
            plain.connect(new InetSocketAddress("127.0.0.1", port), 1000);
            plain.setSoTimeout(2000);
            Socket socket = plain;
            if (tls != null) {
                SSLSocket secured = (SSLSocket) tls.createSocket(plain, "127.0.0.1", port, true);
                secured.startHandshake();
                socket = secured;
            }
            OutputStream out = socket.getOutputStream();
            InputStream in = socket.getInputStream();
            if (protocol.equals("tls")) {
                out.write("version\r\n".getBytes(StandardCharsets.US_ASCII));
                byte[] said = new byte[8];
                return in.readNBytes(said, 0, 8) == 8
                        && new String(said, StandardCharsets.US_ASCII).equals("VERSION ");
            }
            if (protocol.equals("binary")) {
                byte[] noop = new byte[24];
                noop[0] = (byte) 0x80;
                noop[1] = 0x0a;
                out.write(noop);
                return in.read() == 0x81;
            }
            out.write("get kvgate-bench-probe\r\n".getBytes(StandardCharsets.US_ASCII));
            byte[] end = new byte[5];
            return in.readNBytes(end, 0, 5) == 5 && new String(end, StandardCharsets.US_ASCII).equals("END\r\n");
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * A loopback port nothing listens on and not handed out before in this run, below the kernel's range for
     * outgoing connections: a port in that range can be taken by a connection between being found free and being
     * listened on.
     */
    synchronized int freePort() {
        while (true) {
            int port = 10_000 + random.nextInt(portsBelow - 10_000);
            if (!portsHandedOut.contains(port) && !listening(port)) {
                portsHandedOut.add(port);
                return port;
            }
        }
    }

    private static boolean listening(int port) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 200);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** The first port of the kernel's range for outgoing connections (40000 when it starts too low to leave room). */
    private static int portsBelow() {
        try {
            int first = Integer.parseInt(Files.readString(Path.of("/proc/sys/net/ipv4/ip_local_port_range"))
                    .trim().split("\\s+")[0]);
            return first < 12_000 ? 40_000 : first;
        } catch (IOException | RuntimeException e) {
            return 32_768;
        }
    }

    /** Stops one process before the end: TERM, up to 10 s, then KILL. */
    synchronized void stop(Started started) {
        stopNow(List.of(started));
        running.remove(started.pid());
    }

    /** Whether every one of these processes still runs; throws, with the first stopped one's output, if not. */
    static void checkAlive(Started... servers) {
        for (Started server : servers) {
            if (server != null && !server.alive()) {
                throw new IllegalStateException(server.name() + " (pid " + server.pid()
                        + ") has stopped during the run; its output:\n" + tail(server, 20));
            }
        }
    }

    private static void stopNow(List<Started> processes) {
        for (Started started : processes) {
            started.process().descendants().forEach(ProcessHandle::destroy);
            started.process().destroy();
        }
        for (Started started : processes) {
            try {
                if (!started.process().waitFor(10, TimeUnit.SECONDS)) {
                    started.process().descendants().forEach(ProcessHandle::destroyForcibly);
                    started.process().destroyForcibly().waitFor(5, TimeUnit.SECONDS);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                started.process().destroyForcibly();
            }
        }
    }

    private synchronized void stopAll() {
        closing = true;
        forgetEnded();
        List<Started> all = new ArrayList<>(running.values());
        stopNow(all);
        running.clear();
        if (!all.isEmpty()) {
            System.err.println("bench: stopped " + String.join(" ", all.stream()
                    .map(started -> started.name() + " (" + started.pid() + ")").toList()));
        }
    }

    @Override
    public void close() {
        stopAll();
        try {
            Runtime.getRuntime().removeShutdownHook(stopAtExit);
        } catch (IllegalStateException e) {
            // shutting down already: the hook runs
        }
    }
}
