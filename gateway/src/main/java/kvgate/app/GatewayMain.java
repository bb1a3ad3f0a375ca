package kvgate.app;

import io.netty.util.ResourceLeakDetector;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import kvgate.config.Configuration;
import kvgate.config.ConfigurationException;
import kvgate.config.StartupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import sun.misc.Signal;

/**
 * {@code kvgate [--config=FILE] [--key=value ...]}: starts the gateway and runs until stopped (SIGINT or SIGTERM),
 * then shuts down cleanly. A configuration or start-up problem is printed and exits with status 2. SIGHUP reloads
 * the route tree from the file, with the same arguments on top ({@link Gateway#reload}).
 */
public final class GatewayMain {
    private GatewayMain() {
    }

    public static void main(String[] args) throws InterruptedException {
        leakDetectionOffUnlessAsked();
        Path home = home();
        Gateway gateway;
        try {
            Path file = home.resolve("conf").resolve("gateway.conf");
            List<String> arguments = Arrays.asList(args);
            gateway = Gateway.start(() -> Configuration.load(file, arguments), home);
        } catch (ConfigurationException e) {
            System.err.println("kvgate: configuration error:\n" + e.getMessage());
            System.exit(2);
            return;
        } catch (StartupException e) {
            System.err.println("kvgate: cannot start:\n" + e.getMessage());
            System.exit(2);
            return;
        }
        reloadOnHangUp(gateway);
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            gateway.close();
            stopped.countDown();
        }, "kvgate-shutdown"));
        stopped.await();
    }

    /**
     * Netty's leak detector samples one buffer in 128 by default and records a stack trace for each: a few percent of
     * the gateway's CPU under load, for a check the tests already make on every buffer (at its paranoid level). It
     * stays available: {@code -Dio.netty.leakDetection.level=simple} (or higher) in {@code KVGATE_JAVA_OPTS}.
     */
    private static void leakDetectionOffUnlessAsked() {
        if (System.getProperty("io.netty.leakDetection.level") == null) {
            ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.DISABLED);
        }
    }

    /**
     * Reloads on SIGHUP, as daemons do. The outcome goes to the log: a refused configuration is logged with why, and
     * the one in force stays. The signal handler only starts the reload; it runs on a thread of its own.
     */
    private static void reloadOnHangUp(Gateway gateway) {
        Logger log = LoggerFactory.getLogger(GatewayMain.class);
        try {
            Signal.handle(new Signal("HUP"), signal -> {
                Thread reload = new Thread(() -> {
                    try {
                        gateway.reload();
                    } catch (ConfigurationException | StartupException | RuntimeException e) {
                        log.error("reload refused, the configuration in force stays: {}", e.getMessage());
                    }
                }, "kvgate-sighup");
                reload.setDaemon(true);
                reload.start();
            });
        } catch (IllegalArgumentException e) {
            log.warn("SIGHUP cannot be handled here ({}); reload through the admin port", e.getMessage());
        }
    }

    /**
     * The installation directory: the system property {@code kvgate.home}, else the directory above the
     * {@code lib/} holding the gateway's jar, else the working directory.
     */
    static Path home() {
        String property = System.getProperty("kvgate.home");
        if (property != null) {
            return Path.of(property);
        }
        try {
            Path jar = Path.of(GatewayMain.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            Path lib = jar.getParent();
            if (Files.isRegularFile(jar) && lib != null && lib.getFileName().toString().equals("lib")
                    && lib.getParent() != null) {
                return lib.getParent();
            }
        } catch (URISyntaxException | SecurityException | NullPointerException e) {
            // fall through to the working directory
        }
        return Path.of("").toAbsolutePath();
    }
}
