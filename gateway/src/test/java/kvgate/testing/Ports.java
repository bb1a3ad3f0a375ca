package kvgate.testing;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;

/** Loopback ports for server processes the tests start. */
public final class Ports {
    private Ports() {
    }

    /** A port that was free a moment ago. */
    public static int free() throws IOException {
        try (ServerSocket probe = new ServerSocket(0)) {
            return probe.getLocalPort();
        }
    }

    /** Returns once {@code process} accepts connections on {@code port}; fails if it exits or takes too long. */
    public static void awaitListening(int port, Process process, String what, long timeoutMillis) throws Exception {
        long deadline = System.currentTimeMillis() + timeoutMillis;
        while (System.currentTimeMillis() < deadline) {
            if (!process.isAlive()) {
                throw new AssertionError(what + " exited at start-up");
            }
            try (Socket ignored = new Socket("127.0.0.1", port)) {
                return;
            } catch (IOException e) {
                Thread.sleep(20);
            }
        }
        throw new AssertionError(what + " did not listen on port " + port + " within " + timeoutMillis + " ms");
    }
}
