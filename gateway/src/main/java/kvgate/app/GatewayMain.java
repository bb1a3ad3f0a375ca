package kvgate.app;

import io.netty.util.ResourceLeakDetector;
import java.io.PrintStream;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import kvgate.config.Configuration;
import kvgate.config.ConfigurationException;
import kvgate.config.StartupException;
import kvgate.config.ConfigurationReference;
import kvgate.config.GatewaySettings;
import kvgate.config.SettingGroup;
import kvgate.net.GatewayVersion;
import kvgate.plugins.PluginCatalog;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import sun.misc.Signal;

/**
 * {@code kvgate [--config=FILE] [--key=value ...]} (or {@code --version}, {@code --help}): starts the gateway and
 * runs until stopped (SIGINT or SIGTERM), then shuts down cleanly. A configuration or start-up problem is printed and exits with status 2. SIGHUP reloads
 * the route tree from the file, with the same arguments on top ({@link Gateway#reload}).
 */
public final class GatewayMain {
    private GatewayMain() {
    }

    public static void main(String[] args) throws InterruptedException {
        Path home = home();
        if (answered(args, System.out, home)) {
            return;
        }
        leakDetectionOffUnlessAsked();
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
     * {@code --version} (or {@code -V}) prints the version and the build, {@code --help} (or {@code -h}) the usage and
     * every key, the gateway's and its plugins', grouped, with its default and description; either as the only
     * argument besides {@code --config=FILE}, and the gateway does not start.
     *
     * @param home the installation directory, where the configuration file and the plugins are found
     * @return whether the arguments asked for one of them, which is then printed to {@code out}
     */
    static boolean answered(String[] args, PrintStream out, Path home) {
        // bin/gateway names the configuration file before the user's arguments.
        List<String> configFile = Arrays.stream(args).filter(arg -> arg.startsWith(Configuration.CONFIG_ARGUMENT))
                .toList();
        List<String> asked = Arrays.stream(args).filter(arg -> !arg.startsWith(Configuration.CONFIG_ARGUMENT))
                .toList();
        if (asked.size() != 1) {
            return false;
        }
        switch (asked.get(0)) {
            case "--version", "-V" -> out.println("kvgate " + GatewayVersion.VERSION + " (build "
                    + GatewayVersion.BUILD + ")");
            case "--help", "-h" -> out.print(usage(home, configFile));
            default -> {
                return false;
            }
        }
        return true;
    }

    private static final int HELP_WIDTH = 110;
    private static final String PF4J_LOG_LEVEL = "org.slf4j.simpleLogger.log.org.pf4j";

    private static String usage(Path home, List<String> configFile) {
        // The plugins are loaded only to list their keys: PF4J's account of that is noise here. slf4j-simple reads
        // this when its first logger is made, which the help comes before.
        if (System.getProperty(PF4J_LOG_LEVEL) == null) {
            System.setProperty(PF4J_LOG_LEVEL, "warn");
        }
        StringBuilder usage = new StringBuilder();
        usage.append("usage: bin/gateway [--config=FILE] [--KEY=VALUE ...]\n")
                .append("       bin/gateway --version | --help\n\n")
                .append("Runs kvgate with conf/gateway.conf (or FILE); each --KEY=VALUE overrides the file's KEY.\n")
                .append("SIGHUP reloads the configuration; SIGINT and SIGTERM stop the gateway cleanly.\n")
                .append("The keys follow, grouped, at their defaults; docs/configuration.md describes them too.\n");
        try (PluginCatalog plugins = PluginCatalog.load(helpPlugins(home, configFile))) {
            usage.append(ConfigurationReference.help(SettingGroups.all(plugins), HELP_WIDTH));
            usage.append("\nBackend instances: backends.<name>.type = <backend type>, then backends.<name>.<key> for "
                    + "that type's keys.\nRoute nodes: routes.<name>.type = <node type>, then its keys as "
                    + "routes.<name>.<key>:\n");
            usage.append(ConfigurationReference.help(SettingGroups.routeNodes(plugins), HELP_WIDTH));
        } catch (StartupException e) {
            usage.append(ConfigurationReference.help(List.of(new SettingGroup("The gateway's own keys (the plugins "
                    + "could not be loaded: " + e.getMessage() + ")", "", Protocols.settings())), HELP_WIDTH));
        }
        return usage.toString();
    }

    /** The plugin directories the configuration names, or the shipped one when it cannot be read. */
    private static List<Path> helpPlugins(Path home, List<String> configFile) {
        try {
            Configuration configuration = Configuration.load(home.resolve("conf").resolve("gateway.conf"),
                    configFile);
            return Gateway.pluginDirectories(configuration.resolve(GatewaySettings.ALL), home);
        } catch (ConfigurationException e) {
            return List.of(home.resolve("plugins"));
        }
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
