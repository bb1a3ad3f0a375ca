package kvgate.testing;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A real twemproxy (nutcracker) process on a loopback port in front of a memcached pool, as the reference for key
 * placement: {@code distribution: ketama}, {@code hash: md5}, no ejection.
 */
public final class Nutcracker implements AutoCloseable {
    private final Path directory;
    private final Process process;
    private final int port;

    private Nutcracker(Path directory, Process process, int port) {
        this.directory = directory;
        this.process = process;
        this.port = port;
    }

    /** Starts nutcracker with {@code servers} as twemproxy lists them ({@code host:port:weight[ name]}). */
    public static Nutcracker start(List<String> servers) throws Exception {
        Path directory = Files.createTempDirectory("nutcracker");
        int port = Ports.free();
        StringBuilder config = new StringBuilder()
                .append("pool:\n")
                .append("  listen: 127.0.0.1:").append(port).append('\n')
                .append("  hash: md5\n")
                .append("  distribution: ketama\n")
                .append("  auto_eject_hosts: false\n")
                .append("  servers:\n");
        for (String server : servers) {
            config.append("   - ").append(server).append('\n');
        }
        Path file = directory.resolve("nutcracker.yml");
        Files.writeString(file, config);
        Process process = new ProcessBuilder(executable(), "-c", file.toString(),
                "-s", Integer.toString(Ports.free()), "-a", "127.0.0.1",
                "-o", directory.resolve("nutcracker.log").toString(),
                "-p", directory.resolve("nutcracker.pid").toString())
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .start();
        Nutcracker nutcracker = new Nutcracker(directory, process, port);
        try {
            Ports.awaitListening(port, process, "nutcracker on port " + port, 10_000);
        } catch (Exception | AssertionError e) {
            nutcracker.close();
            throw e;
        }
        return nutcracker;
    }

    private static String executable() {
        // Debian installs it in /usr/sbin, which is not on every user's PATH.
        return Files.isExecutable(Path.of("/usr/sbin/nutcracker")) ? "/usr/sbin/nutcracker" : "nutcracker";
    }

    public int port() {
        return port;
    }

    @Override
    public void close() throws Exception {
        if (process.isAlive()) {
            process.destroyForcibly();
            process.waitFor(10, TimeUnit.SECONDS);
        }
        try (var files = Files.list(directory)) {
            for (Path file : files.toList()) {
                Files.deleteIfExists(file);
            }
        }
        Files.deleteIfExists(directory);
    }
}
