package kvgate.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import kvgate.app.Protocols;
import kvgate.counter.CounterProtocol;
import kvgate.counterstore.CounterStoreSettings;
import kvgate.spi.Settings;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConfigurationTest {

    @Test
    void commandLineOverridesTheFileAndDefaultsFillTheRest(@TempDir Path dir) throws Exception {
        Path file = Files.writeString(dir.resolve("gateway.conf"),
                "# comment\n\nmemcached.port = 1234\nmax_item_size = 2m\n  io_threads=3  \n");
        Configuration configuration = Configuration.load(file, List.of("--memcached.port=21211"));
        Settings settings = configuration.resolve(Protocols.settings());
        assertEquals(21211, settings.intValue("memcached.port"));
        assertEquals(2L << 20, settings.size("max_item_size"));
        assertEquals(3, settings.intValue("io_threads"));
        assertEquals("local", settings.text("backend"), "default");
    }

    @Test
    void theShippedConfigurationIsValidAndStatesTheDefaults() throws Exception {
        Path shipped = Path.of(System.getProperty("kvgate.test.conf"));
        Configuration configuration = Configuration.load(shipped, List.of());
        Settings settings = configuration.resolve(Protocols.settings());
        for (var setting : Protocols.settings()) {
            if (setting.key().endsWith(".bind")) {
                // Loopback only, as shipped: nothing is reachable from beyond the host until an operator opens it.
                assertEquals("127.0.0.1", settings.text(setting.key()), setting.key());
                continue;
            }
            if (setting.key().equals(CounterProtocol.ENABLE)
                    || setting.key().equals("okuyama.enable")
                    || setting.key().equals(GatewaySettings.ADMIN_ENABLE)
                    || setting.key().equals(GatewaySettings.METRICS_ENABLE)) {
                // Off by default (the counter extension's document says so; an embedded gateway opens no admin or
                // metrics port unasked); the shipped configuration turns them on.
                assertEquals("true", settings.text(setting.key()));
                continue;
            }
            assertEquals(setting.defaultValue(), settings.text(setting.key()),
                    "conf/gateway.conf should show the default of " + setting.key());
        }
    }

    @Test
    void aBadValueNamesTheKeyTheValueItsSourceAndWhatIsAllowed(@TempDir Path dir) throws Exception {
        Path file = Files.writeString(dir.resolve("gateway.conf"), "memcached.port = 70000\n");
        Configuration configuration = Configuration.load(file, List.of("--max_item_size=lots"));
        ConfigurationException e = assertThrows(ConfigurationException.class,
                () -> configuration.resolve(Protocols.settings()));
        String message = e.getMessage();
        assertTrue(message.contains("memcached.port") && message.contains("70000")
                && message.contains("line 1") && message.contains("from 0 to 65535"), message);
        assertTrue(message.contains("max_item_size") && message.contains("lots")
                && message.contains("command line") && message.contains("suffix"), message);
    }

    @Test
    void unknownKeysAreRefusedByName(@TempDir Path dir) throws Exception {
        Path file = Files.writeString(dir.resolve("gateway.conf"), "memcached.prot = 1\n");
        Configuration configuration = Configuration.load(file, List.of("--bogus=1"));
        ConfigurationException e = assertThrows(ConfigurationException.class,
                () -> configuration.rejectUnknown(Set.of("memcached.port"), Map.of()));
        assertTrue(e.getMessage().contains("'memcached.prot'") && e.getMessage().contains("line 1"), e.getMessage());
        assertTrue(e.getMessage().contains("did you mean 'memcached.port'?"), e.getMessage());
        String bogus = e.getMessage().lines().filter(line -> line.contains("'bogus'")).findFirst().orElseThrow();
        assertTrue(!bogus.contains("did you mean"), "nothing suggested for a word far from every key: " + bogus);
    }

    @Test
    void aSlipIsMatchedToTheKeyMeant() {
        Set<String> known = Set.of("memcached.port", "okuyama.port", "max_item_size", "idle_timeout_s");
        assertEquals(Optional.of("max_item_size"), Configuration.meant("max_itme_size", known), "two letters swapped");
        assertEquals(Optional.of("idle_timeout_s"), Configuration.meant("idle_timeout", known), "a suffix left out");
        assertEquals(Optional.of("okuyama.port"), Configuration.meant("okuyam.port", known));
        assertEquals(Optional.empty(), Configuration.meant("backend_of_mine", known));
    }

    @Test
    void aRetiredKeyPassesEmptyAndIsRefusedWithItsReplacementWhenSet(@TempDir Path dir) throws Exception {
        Map<String, String> retired = Map.of("old", "use new");
        Path empty = Files.writeString(dir.resolve("empty.conf"), "old =\n");
        Configuration.load(empty, List.of()).rejectUnknown(Set.of(), retired);
        Path set = Files.writeString(dir.resolve("set.conf"), "\nold = x\n");
        ConfigurationException e = assertThrows(ConfigurationException.class,
                () -> Configuration.load(set, List.of()).rejectUnknown(Set.of(), retired));
        assertEquals("configuration key 'old' is retired (use new) (from " + set + " line 2)", e.getMessage());
    }

    @Test
    void theReferenceSpellingOfTheCounterIntervalIsAccepted(@TempDir Path dir) throws Exception {
        Path file = Files.writeString(dir.resolve("gateway.conf"), "counter.stat_interval = 3600\n");
        Settings settings = Configuration.load(file, List.of()).withAliases(Protocols.aliases())
                .resolve(Protocols.settings());
        assertEquals(3600, settings.integer(CounterStoreSettings.STATS_INTERVAL));
        Configuration both = Configuration.load(file, List.of("--counter.stats_interval=60"));
        ConfigurationException e = assertThrows(ConfigurationException.class,
                () -> both.withAliases(Protocols.aliases()));
        assertTrue(e.getMessage().contains("twice"), e.getMessage());
    }

    @Test
    void malformedLinesAndArgumentsAreRefused(@TempDir Path dir) throws Exception {
        Path file = Files.writeString(dir.resolve("gateway.conf"), "just words\n");
        ConfigurationException line = assertThrows(ConfigurationException.class,
                () -> Configuration.load(file, List.of()));
        assertTrue(line.getMessage().contains("line 1"), line.getMessage());
        ConfigurationException argument = assertThrows(ConfigurationException.class,
                () -> Configuration.load(null, List.of("memcached.port=1")));
        assertTrue(argument.getMessage().contains("--key=value"), argument.getMessage());
        ConfigurationException missing = assertThrows(ConfigurationException.class,
                () -> Configuration.load(null, List.of("--config=" + dir.resolve("absent.conf"))));
        assertTrue(missing.getMessage().contains("absent.conf"), missing.getMessage());
    }
}
