package kvgate.testing;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A gateway in a separate JVM, for what one process cannot show: a kill -9, or two gateways side by side. It loads
 * the same plugins as {@link TestGateway} and listens for memcached on a free loopback port.
 */
public final class ChildGateway implements AutoCloseable {
    private final Process process;
    private final int port;

    private ChildGateway(Process process, int port) {
        this.process = process;
        this.port = port;
    }

    /** Starts a gateway with {@code settings} ({@code key=value}), logging to {@code log}; returns once it listens. */
    public static ChildGateway start(Path log, String... settings) throws Exception {
        int port = Ports.free();
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"),
                "kvgate.app.GatewayMain",
                "--plugins.dir=" + TestGateway.pluginsDirectory().toAbsolutePath(),
                "--memcached.bind=127.0.0.1",
                "--memcached.port=" + port,
                "--io_threads=2"));
        for (String setting : settings) {
            command.add("--" + setting);
        }
        Process process = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
        ChildGateway child = new ChildGateway(process, port);
        try {
            Ports.awaitListening(port, process, "the gateway process", 60_000);
        } catch (Exception | AssertionError e) {
            child.kill();
            throw e;
        }
        return child;
    }

    public int port() {
        return port;
    }

    /** Returns once this gateway accepts connections on another of its listeners' {@code port}. */
    public void awaitListening(int otherPort) throws Exception {
        Ports.awaitListening(otherPort, process, "the gateway process", 30_000);
    }

    /** Sends the process a signal by name ({@code HUP}). */
    public void signal(String name) throws Exception {
        Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(process.pid())).inheritIO().start();
        if (kill.waitFor() != 0) {
            throw new AssertionError("kill -" + name + " failed");
        }
    }

    /** SIGKILL: no shutdown hook runs, nothing more is committed. */
    public void kill() throws InterruptedException {
        process.destroyForcibly();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            throw new AssertionError("the gateway process did not die");
        }
    }

    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) {
            kill();
        }
    }
}
