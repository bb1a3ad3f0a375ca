package kvgate.config;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import kvgate.plugins.PluginCatalog;
import kvgate.spi.Setting;
import kvgate.testing.TestGateway;
import org.junit.jupiter.api.Test;

/** Every configuration key, the gateway's and the shipped plugins', is documented in the README and the conf. */
class DocumentedSettingsTest {

    @Test
    void everyKeyIsInTheReadmeTableAndTheShippedConfiguration() throws Exception {
        List<Setting> all = new ArrayList<>(GatewaySettings.ALL);
        try (PluginCatalog plugins = PluginCatalog.load(List.of(TestGateway.pluginsDirectory()))) {
            plugins.backends().forEach((type, found) -> found.extension().settings()
                    .forEach(setting -> all.add(setting.withKey(type + "." + setting.key()))));
        }
        String readme = Files.readString(Path.of(System.getProperty("kvgate.test.readme")));
        String conf = Files.readString(Path.of(System.getProperty("kvgate.test.conf")));
        for (Setting setting : all) {
            String row = "| `" + setting.key() + "` | ";
            assertTrue(readme.contains(row), "README lacks a table row for " + setting.key());
            assertTrue(conf.contains("\n" + setting.key() + " ="), "conf/gateway.conf lacks " + setting.key());
        }
    }
}
