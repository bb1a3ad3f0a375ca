package kvgate.plugins;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;
import kvgate.config.ConfigurationException;
import kvgate.config.StartupException;
import kvgate.testing.BinaryClient;
import kvgate.testing.TestGateway;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The local store arrives as a plugin; a missing or broken plugin stops start-up with a message naming it. */
class PluginLoadingTest {

    private static Path pluginsWithLocalStore(Path dir) throws Exception {
        Path plugins = Files.createDirectories(dir.resolve("plugins"));
        try (var zips = Files.list(TestGateway.pluginsDirectory())) {
            for (Path zip : zips.filter(p -> p.toString().endsWith(".zip")).toList()) {
                Files.copy(zip, plugins.resolve(zip.getFileName()));
            }
        }
        return plugins;
    }

    @Test
    void theLocalStoreIsLoadedFromThePluginsDirectoryNotTheClassPath() throws Exception {
        assertThrows(ClassNotFoundException.class, () -> Class.forName("kvgate.backend.local.LocalBackendFactory"),
                "the local store must not be on the gateway's class path");
        try (TestGateway gateway = TestGateway.start(); BinaryClient c = new BinaryClient(gateway.port())) {
            assertEquals(0, c.set("via-plugin", "x", 0, 0).status());
        }
    }

    @Test
    void anUnknownBackendTypeNamesTheTypeAndWhatWasFound() {
        StartupException e = assertThrows(StartupException.class,
                () -> TestGateway.start(Map.of("backend", "cassandra")));
        assertTrue(e.getMessage().contains("'cassandra'") && e.getMessage().contains("local")
                && e.getMessage().contains("memcached"), e.getMessage());
    }

    @Test
    void aPluginThatIsNotAZipStopsStartUpNamingIt(@TempDir Path dir) throws Exception {
        Path plugins = pluginsWithLocalStore(dir);
        Files.write(plugins.resolve("broken-backend.zip"), new byte[] {1, 2, 3, 4, 5});
        Exception e = assertThrows(Exception.class,
                () -> TestGateway.start(Map.of("plugins.dir", plugins.toString())));
        assertTrue(e.getMessage().contains("broken-backend"), e.getMessage());
    }

    @Test
    void aPluginWithoutADescriptorStopsStartUpNamingIt(@TempDir Path dir) throws Exception {
        Path plugins = pluginsWithLocalStore(dir);
        try (OutputStream out = Files.newOutputStream(plugins.resolve("nameless.zip"));
             ZipOutputStream zip = new ZipOutputStream(out)) {
            zip.putNextEntry(new ZipEntry("lib/readme.txt"));
            zip.write("no plugin.properties here".getBytes());
            zip.closeEntry();
        }
        StartupException e = assertThrows(StartupException.class,
                () -> TestGateway.start(Map.of("plugins.dir", plugins.toString())));
        assertTrue(e.getMessage().contains("nameless"), e.getMessage());
    }

    @Test
    void aMissingPluginDirectoryIsNamed(@TempDir Path dir) {
        StartupException e = assertThrows(StartupException.class,
                () -> TestGateway.start(Map.of("plugins.dir", dir.resolve("nowhere").toString())));
        assertTrue(e.getMessage().contains("nowhere") && e.getMessage().contains("does not exist"), e.getMessage());
    }

    @Test
    void aBackendThatCannotOpenNamesThePlugin(@TempDir Path dir) throws Exception {
        Path notADirectory = Files.writeString(dir.resolve("a-file"), "x");
        StartupException e = assertThrows(StartupException.class,
                () -> TestGateway.start(Map.of("local.path", notADirectory.toString())));
        assertTrue(e.getMessage().contains("local-backend") && e.getMessage().contains("a-file"), e.getMessage());
    }

    @Test
    void backendSettingsAreValidatedLikeTheGatewaysOwn() {
        ConfigurationException unknown = assertThrows(ConfigurationException.class,
                () -> TestGateway.start(Map.of("local.bogus", "1")));
        assertTrue(unknown.getMessage().contains("'local.bogus'"), unknown.getMessage());
        ConfigurationException bad = assertThrows(ConfigurationException.class,
                () -> TestGateway.start(Map.of("local.commit_interval_ms", "soon")));
        assertTrue(bad.getMessage().contains("local.commit_interval_ms") && bad.getMessage().contains("soon"),
                bad.getMessage());
    }

    @Test
    void theCounterStoreMustBeABackendThatKeepsCounters() {
        StartupException local = assertThrows(StartupException.class,
                () -> TestGateway.start(Map.of("counter.store", "local")));
        assertTrue(local.getMessage().contains("keeps no counters"), local.getMessage());
        StartupException unknown = assertThrows(StartupException.class,
                () -> TestGateway.start(Map.of("counter.store", "etcd")));
        assertTrue(unknown.getMessage().contains("etcd") && unknown.getMessage().contains("memory"),
                unknown.getMessage());
    }

    @Test
    void theRetiredFiltersKeyIsIgnoredEmptyAndRefusedWithItsReplacementOtherwise() throws Exception {
        ConfigurationException e = assertThrows(ConfigurationException.class,
                () -> TestGateway.start(Map.of("filters", "rewrite-keys")));
        assertTrue(e.getMessage().contains("'filters' is retired") && e.getMessage().contains("RouteFactory"),
                e.getMessage());
        try (TestGateway gateway = TestGateway.start(Map.of("filters", ""))) {
            assertTrue(gateway.port() > 0);
        }
    }
}
