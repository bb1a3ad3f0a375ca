package kvgate.load.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import javax.net.ssl.SSLSocketFactory;

/**
 * How a run starts its servers, each the same way every time: memcached with the servers' threads, a gateway on
 * loopback listening only where asked, nutcracker in front of a memcached; each awaited until it answers.
 */
final class Lineup {
    private final Servers servers;
    private final Tools tools;
    private final BenchSettings settings;
    private final Path tmp;
    /** Part 6's check that a TLS server is up: a handshake with the run's CA, then a version asked. */
    private SSLSocketFactory tlsProbe;

    /** @param tmp where the gateways' working directories and nutcracker's files go */
    Lineup(Servers servers, Tools tools, BenchSettings settings, Path tmp) {
        this.servers = servers;
        this.tools = tools;
        this.settings = settings;
        this.tmp = tmp;
    }

    /** The trust a TLS server started later is checked with. */
    void tlsProbe(SSLSocketFactory probe) {
        this.tlsProbe = probe;
    }

    /** A memcached on {@code port}, awaited by {@code probe} (binary, or tls); {@code more} adds options. */
    Servers.Started memcached(String name, int port, String probe, String... more)
            throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(tools.memcached().toString(), "-l", "127.0.0.1", "-p",
                Integer.toString(port), "-U", "0", "-m", "1024", "-t", Integer.toString(settings.serverThreads()),
                "-c", "4096"));
        command.addAll(Arrays.asList(more));
        if (!settings.memcachedOpts().isBlank()) {
            command.addAll(BenchSettings.words(settings.memcachedOpts()));
        }
        if ("root".equals(System.getProperty("user.name"))) {
            command.addAll(List.of("-u", "root")); // memcached refuses root unless told
        }
        Servers.Started started = servers.server(name, command, Map.of(), null);
        Servers.await(started, port, probe, probe.equals("tls") ? tlsProbe : null);
        return started;
    }

    /** A gateway on loopback, listening only where {@code overrides} say beside the memcached port. */
    Servers.Started gateway(String name, int port, String javaOpts, String... overrides)
            throws IOException, InterruptedException {
        return gateway(name, port, javaOpts, false, overrides);
    }

    /** The same, serving its memcached port over TLS only, with the certificate {@code overrides} name. */
    Servers.Started tlsGateway(String name, int port, String javaOpts, String... overrides)
            throws IOException, InterruptedException {
        List<String> all = new ArrayList<>(List.of("--memcached.tls=true"));
        all.addAll(Arrays.asList(overrides));
        return gateway(name, port, javaOpts, true, all.toArray(String[]::new));
    }

    private Servers.Started gateway(String name, int port, String javaOpts, boolean tls, String... overrides)
            throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(tools.gateway());
        command.addAll(List.of("--memcached.bind=127.0.0.1", "--memcached.port=" + port, "--okuyama.enable=false",
                "--counter.enable=false", "--mpdb.enable=false", "--admin.enable=false", "--metrics.enable=false",
                "--io_threads=" + settings.serverThreads(), "--io_transport=" + settings.ioTransport(),
                "--local.path=:memory:"));
        command.addAll(Arrays.asList(overrides));
        Servers.Started started = servers.server(name, command, Map.of("KVGATE_JAVA_OPTS", javaOpts),
                tmp.resolve(name.replace('/', '-')));
        // One at a time: each expands the plugin zips in the shared plugins directory on its first start.
        if (tls) {
            Servers.await(started, port, "tls", tlsProbe);
        } else {
            Servers.await(started, port, "binary");
        }
        return started;
    }

    /** twemproxy (nutcracker) on {@code port} in front of the memcached on {@code memcachedPort}, ketama by MD5. */
    Servers.Started twemproxy(int port, int statsPort, int memcachedPort) throws IOException, InterruptedException {
        Path yml = tmp.resolve("nutcracker.yml");
        Files.writeString(yml, "pool:\n  listen: 127.0.0.1:" + port + "\n  hash: md5\n  distribution: ketama\n"
                + "  auto_eject_hosts: false\n  servers:\n   - 127.0.0.1:" + memcachedPort + ":1\n");
        Servers.Started twemproxy = servers.server("twemproxy", List.of(tools.nutcracker().toString(), "-c",
                yml.toString(), "-s", Integer.toString(statsPort), "-a", "127.0.0.1", "-o",
                tmp.resolve("nutcracker.log").toString(), "-p", tmp.resolve("nutcracker.pid").toString()), Map.of(),
                null);
        Servers.await(twemproxy, port, "text");
        return twemproxy;
    }
}
