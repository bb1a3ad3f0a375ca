package kvgate.server;

import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.CountDownLatch;
import kvgate.config.Configuration;
import kvgate.config.ConfigurationException;

/**
 * {@code kvgate [--config=FILE] [--key=value ...]}: starts the gateway and runs until stopped (SIGINT or SIGTERM),
 * then shuts down cleanly. A configuration or start-up problem is printed and exits with status 2.
 */
public final class GatewayMain {
    private GatewayMain() {
    }

    public static void main(String[] args) throws InterruptedException {
        Path home = home();
        Gateway gateway;
        try {
            Configuration configuration = Configuration.load(home.resolve("conf").resolve("gateway.conf"),
                    Arrays.asList(args));
            gateway = Gateway.start(configuration, home);
        } catch (ConfigurationException e) {
            System.err.println("kvgate: configuration error:\n" + e.getMessage());
            System.exit(2);
            return;
        } catch (StartupException e) {
            System.err.println("kvgate: cannot start:\n" + e.getMessage());
            System.exit(2);
            return;
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            gateway.close();
            stopped.countDown();
        }, "kvgate-shutdown"));
        stopped.await();
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
