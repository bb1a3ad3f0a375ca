package kvgate.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import kvgate.net.GatewayVersion;

/**
 * {@code plugins/example-backend}, the example third-party plugin, built as its README tells a third party to build
 * it: by Maven in a process of its own, outside the reactor, against the SPI this build published in
 * {@code spi/target/repository}. It is built once per test JVM, from a copy under the gateway module's
 * {@code target/}, so the source tree stays clean, and with this build's local repository, so nothing new is
 * downloaded.
 */
public final class ExamplePlugin {
    private static final Pattern TIMESTAMP = Pattern.compile("<timestamp>([^<]+)</timestamp>");
    private static final Pattern BUILD_NUMBER = Pattern.compile("<buildNumber>([^<]+)</buildNumber>");
    private static final long BUILD_MINUTES = 5;

    private static Path pluginsDirectory;

    private ExamplePlugin() {
    }

    /**
     * The settings that start a test gateway on the example plugin, for its data and its counters: the project's
     * test plugins directory, and beside it a fresh one holding only the example plugin's zip.
     */
    public static Map<String, String> settings() throws Exception {
        Map<String, String> settings = new HashMap<>();
        settings.put("plugins.dir", TestGateway.pluginsDirectory().toAbsolutePath() + "," + pluginsDirectory());
        settings.put("backend", "example");
        settings.put("counter.store", "example");
        return settings;
    }

    /** A plugins directory holding the example plugin's zip alone, built on first use. */
    public static synchronized Path pluginsDirectory() throws Exception {
        if (pluginsDirectory == null) {
            Path target = TestGateway.pluginsDirectory().toAbsolutePath().getParent();
            Path zip = build(target.resolve("example-backend"));
            Path plugins = target.resolve("example-plugins");
            deleteTree(plugins);
            Files.createDirectories(plugins);
            Files.copy(zip, plugins.resolve(zip.getFileName()));
            pluginsDirectory = plugins;
        }
        return pluginsDirectory;
    }

    /** The example's own pom, as a third party would copy it. */
    public static String pom() throws IOException {
        return Files.readString(source().resolve("pom.xml"));
    }

    /** Copies the example into {@code work} and runs {@code mvn package} there; answers the plugin zip. */
    private static Path build(Path work) throws Exception {
        deleteTree(work);
        Path project = work.resolve("project");
        copyTree(source(), project);
        Path log = work.resolve("build.log");
        List<String> command = new ArrayList<>(List.of(maven(), "-B", "-ntp", "-q",
                "-f", project.resolve("pom.xml").toString(),
                "-Dmaven.repo.local=" + property("kvgate.test.localRepository"),
                "-Dkvgate.spi.repository=" + spiRepository(),
                "-Dkvgate.version=" + publishedSpiVersion(),
                // Keeps the shared local repository's kvgate-spi-<version>-SNAPSHOT.jar as it is: the SPI fetched
                // here stays under its timestamped name only.
                "-Daether.artifactResolver.snapshotNormalization=false",
                "package"));
        ProcessBuilder builder = new ProcessBuilder(command).directory(project.toFile()).redirectErrorStream(true)
                .redirectOutput(log.toFile());
        builder.environment().put("JAVA_HOME", System.getProperty("java.home"));
        Process maven = builder.start();
        if (!maven.waitFor(BUILD_MINUTES, TimeUnit.MINUTES)) {
            maven.destroyForcibly().waitFor();
            throw new AssertionError("the example plugin's build took over " + BUILD_MINUTES + " minutes: "
                    + String.join(" ", command) + "\n" + readQuietly(log));
        }
        assertEquals(0, maven.exitValue(), () -> "the example plugin's build failed: " + String.join(" ", command)
                + "\n" + readQuietly(log));
        try (Stream<Path> files = Files.list(project.resolve("target"))) {
            List<Path> zips = files.filter(file -> file.getFileName().toString().endsWith(".zip")).toList();
            assertEquals(1, zips.size(), "one plugin zip: " + zips);
            return zips.get(0);
        }
    }

    /** The Maven that runs this build (surefire passes its home), else the one on the PATH. */
    private static String maven() {
        String home = System.getProperty("maven.home");
        if (home != null && !home.isBlank()) {
            Path mvn = Path.of(home, "bin", "mvn");
            if (Files.isExecutable(mvn)) {
                return mvn.toString();
            }
        }
        return "mvn";
    }

    private static Path source() {
        return Path.of(property("kvgate.test.exampleBackend"));
    }

    private static Path spiRepository() {
        Path repository = Path.of(property("kvgate.test.spiRepository"));
        assertTrue(Files.isDirectory(repository), repository + " is missing: the spi module writes it when "
                + "packaged (mvn package or verify from the root)");
        return repository;
    }

    /**
     * The exact SPI this build published. A snapshot is asked for by its timestamped version: a bare
     * {@code -SNAPSHOT} could also be met by an older SPI installed into the local repository.
     */
    private static String publishedSpiVersion() throws IOException {
        String version = GatewayVersion.VERSION;
        if (!version.endsWith("-SNAPSHOT")) {
            return version;
        }
        String metadata = Files.readString(spiRepository().resolve("kvgate/kvgate-spi/" + version
                + "/maven-metadata.xml"));
        return version.replace("SNAPSHOT", match(TIMESTAMP, metadata) + "-" + match(BUILD_NUMBER, metadata));
    }

    private static String match(Pattern pattern, String text) {
        Matcher matcher = pattern.matcher(text);
        assertTrue(matcher.find(), pattern + " not in " + text);
        return matcher.group(1);
    }

    private static String property(String name) {
        String value = System.getProperty(name);
        if (value == null) {
            throw new IllegalStateException("system property " + name + " is not set (run the tests with Maven)");
        }
        return value;
    }

    /** Copies the project's sources, leaving out any target/ of a build made in place. */
    private static void copyTree(Path from, Path to) throws IOException {
        try (Stream<Path> files = Files.walk(from)) {
            for (Path file : files.filter(file -> !from.relativize(file).startsWith("target")).toList()) {
                Path copy = to.resolve(from.relativize(file).toString());
                if (Files.isDirectory(file)) {
                    Files.createDirectories(copy);
                } else {
                    Files.copy(file, copy);
                }
            }
        }
    }

    private static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> files = Files.walk(root)) {
            for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(file);
            }
        }
    }

    private static String readQuietly(Path log) {
        try {
            return Files.readString(log);
        } catch (IOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }
}
