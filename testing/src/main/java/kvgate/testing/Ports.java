package kvgate.testing;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Loopback ports for server processes the tests start. They are chosen below the kernel's range for outgoing
 * connections: a port in that range can be taken, between being found free and being listened on, by any
 * connection's own end (a gateway's to its memcached, say), and a probe of it can even connect to itself, which
 * looks like a server listening before there is one.
 */
public final class Ports {
    private static final int LOWEST = 10_000;
    /** The ports below which they are chosen: where the kernel's range for outgoing connections starts. */
    private static final int BELOW = outgoingRangeStart();
    /** Ports handed out in this JVM: each only once, so that two servers starting at once never share one. */
    private static final Set<Integer> HANDED_OUT = ConcurrentHashMap.newKeySet();

    private Ports() {
    }

    /** A loopback port that was free a moment ago and that no outgoing connection will take. */
    public static int free() throws IOException {
        for (int tries = 0; tries < 1000; tries++) {
            int port = ThreadLocalRandom.current().nextInt(LOWEST, BELOW);
            if (!HANDED_OUT.contains(port) && bindable(port) && HANDED_OUT.add(port)) {
                return port;
            }
        }
        throw new IOException("no free port between " + LOWEST + " and " + BELOW);
    }

    /** Returns once {@code process} accepts connections on {@code port}; fails if it exits or takes too long. */
    public static void awaitListening(int port, Process process, String what, long timeoutMillis) throws Exception {
        awaitListening(() -> {
            try (Socket connected = new Socket("127.0.0.1", port)) {
                return connected.getLocalPort() != port; // else a connection to itself, which nobody accepted
            }
        }, process, what + " did not listen on port " + port, timeoutMillis);
    }

    /** Returns once {@code process} accepts connections on the Unix domain socket {@code socket}. */
    public static void awaitListening(Path socket, Process process, String what, long timeoutMillis)
            throws Exception {
        awaitListening(() -> {
            try (SocketChannel connected = SocketChannel.open(UnixDomainSocketAddress.of(socket))) {
                return connected.isConnected();
            }
        }, process, what + " did not listen", timeoutMillis);
    }

    /** A connection attempt: true when it reached a listening server; an exception when nothing listens yet. */
    private interface Probe {
        boolean connects() throws IOException;
    }

    private static void awaitListening(Probe probe, Process process, String failure, long timeoutMillis)
            throws Exception {
        long deadline = System.currentTimeMillis() + timeoutMillis;
        while (System.currentTimeMillis() < deadline) {
            if (!process.isAlive()) {
                throw new AssertionError(failure + ": it exited at start-up");
            }
            try {
                if (probe.connects()) {
                    return;
                }
            } catch (IOException e) {
                // not listening yet
            }
            Thread.sleep(20);
        }
        throw new AssertionError(failure + " within " + timeoutMillis + " ms");
    }

    private static boolean bindable(int port) {
        try (ServerSocket probe = new ServerSocket()) {
            probe.setReuseAddress(false);
            probe.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * Where the kernel's range for outgoing connections starts: read from Linux, else its default, 32768. A range
     * that starts too low to leave room below it gives 40000 instead, as bin/bench does.
     */
    private static int outgoingRangeStart() {
        int start = 32_768;
        try {
            start = Integer.parseInt(Files.readString(Path.of("/proc/sys/net/ipv4/ip_local_port_range"))
                    .trim().split("\\s+")[0]);
        } catch (IOException | RuntimeException e) {
            // not Linux, or not readable: the default
        }
        return start < LOWEST + 2_000 ? 40_000 : start;
    }
}
