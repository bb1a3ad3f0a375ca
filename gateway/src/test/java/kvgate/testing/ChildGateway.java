package kvgate.testing;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;
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
        int port;
        try (ServerSocket probe = new ServerSocket(0)) {
            port = probe.getLocalPort();
        }
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"),
                "kvgate.server.GatewayMain",
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
            child.awaitPort();
        } catch (Exception | AssertionError e) {
            child.kill();
            throw e;
        }
        return child;
    }

    public int port() {
        return port;
    }

    private void awaitPort() throws Exception {
        long deadline = System.currentTimeMillis() + 60_000;
        while (System.currentTimeMillis() < deadline) {
            if (!process.isAlive()) {
                throw new AssertionError("the gateway process exited during start-up");
            }
            try (Socket ignored = new Socket("127.0.0.1", port)) {
                return;
            } catch (IOException e) {
                Thread.sleep(100);
            }
        }
        throw new AssertionError("the gateway process did not listen within 60 s");
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
