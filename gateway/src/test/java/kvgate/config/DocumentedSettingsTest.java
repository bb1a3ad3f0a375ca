package kvgate.config;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import kvgate.app.Protocols;
import kvgate.plugins.PluginCatalog;
import kvgate.route.RouteTree;
import kvgate.spi.RouteFactory;
import kvgate.spi.Setting;
import kvgate.testing.TestGateway;
import org.junit.jupiter.api.Test;

/** Every configuration key, the gateway's and the shipped plugins', is documented in docs/configuration.md and the conf. */
class DocumentedSettingsTest {

    @Test
    void everyKeyIsInTheReadmeTableAndTheShippedConfiguration() throws Exception {
        List<Setting> all = new ArrayList<>(Protocols.settings());
        try (PluginCatalog plugins = PluginCatalog.load(List.of(TestGateway.pluginsDirectory()))) {
            plugins.backends().forEach((type, found) -> found.extension().settings()
                    .forEach(setting -> all.add(setting.withKey(type + "." + setting.key()))));
        }
        String page = Files.readString(Path.of(System.getProperty("kvgate.test.docs"), "configuration.md"));
        String conf = Files.readString(Path.of(System.getProperty("kvgate.test.conf")));
        for (Setting setting : all) {
            String row = "| `" + setting.key() + "` | ";
            assertTrue(page.contains(row), "docs/configuration.md lacks a table row for " + setting.key());
            assertTrue(conf.contains("\n" + setting.key() + " ="), "conf/gateway.conf lacks " + setting.key());
        }
    }

    /**
     * Keys with a name in them ({@code backends.<name>.<key>}, {@code routes.<name>.<key>}) cannot be listed with
     * defaults: an instance's keys are its type's, documented above; each node type of the gateway and of the shipped
     * plugins has a row in the table of node types in docs/routes.md naming every setting it reads.
     */
    @Test
    void everyRouteNodeAndItsSettingsAreInTheReadme() throws Exception {
        String page = Files.readString(Path.of(System.getProperty("kvgate.test.docs"), "routes.md"));
        String table = "| node type | settings |";
        assertTrue(page.contains(table), "docs/routes.md lacks the table of route node types");
        page = page.substring(page.indexOf(table));
        // A plugin's factory is asked while its plugin is loaded.
        try (PluginCatalog plugins = PluginCatalog.load(List.of(TestGateway.pluginsDirectory()))) {
            List<RouteFactory> nodes = new ArrayList<>(RouteTree.BUILT_IN);
            plugins.routes().values().forEach(found -> nodes.add(found.extension()));
            for (RouteFactory node : nodes) {
                String start = "| `" + node.type() + "` | ";
                int at = page.indexOf(start);
                assertTrue(at >= 0, "docs/routes.md lacks a row for route node type " + node.type());
                String row = page.substring(at, page.indexOf('\n', at));
                for (Setting setting : node.settings()) {
                    assertTrue(row.contains("`" + setting.key() + "`"),
                            "docs/routes.md's row of route node type " + node.type() + " lacks " + setting.key());
                }
            }
        }
    }
}
