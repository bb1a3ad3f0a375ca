package kvgate.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import kvgate.app.Protocols;
import kvgate.app.SettingGroups;
import kvgate.plugins.PluginCatalog;
import kvgate.route.RouteTree;
import kvgate.spi.RouteFactory;
import kvgate.spi.Setting;
import kvgate.testing.TestGateway;
import org.junit.jupiter.api.Test;

/**
 * The configuration reference is the settings' declarations: docs/configuration.md's tables and the shipped
 * conf/gateway.conf are what {@link ConfigurationReference} writes from them, every key in exactly one group; and
 * every route node type is documented in docs/routes.md. Run with {@code -Dkvgate.regenerate=true} (for example
 * {@code bin/test --fast -pl spi,gateway -Dtest=DocumentedSettingsTest -Dkvgate.regenerate=true}) to write the two
 * files anew from the declarations.
 */
class DocumentedSettingsTest {
    private static final boolean REGENERATE = Boolean.getBoolean("kvgate.regenerate");

    @Test
    void theReferenceAndTheShippedConfigurationAreWrittenFromTheDeclarations() throws Exception {
        Path page = Path.of(System.getProperty("kvgate.test.docs"), "configuration.md");
        Path conf = Path.of(System.getProperty("kvgate.test.conf"));
        try (PluginCatalog plugins = PluginCatalog.load(List.of(TestGateway.pluginsDirectory()))) {
            List<SettingGroup> groups = SettingGroups.all(plugins);
            List<String> grouped = groups.stream().flatMap(group -> group.settings().stream()).map(Setting::key)
                    .toList();
            Set<String> declared = new TreeSet<>();
            Protocols.settings().forEach(setting -> declared.add(setting.key()));
            plugins.backends().forEach((type, found) -> found.extension().settings()
                    .forEach(setting -> declared.add(type + "." + setting.key())));
            assertEquals(declared, new TreeSet<>(grouped), "every key in a group");
            assertEquals(grouped.size(), new HashSet<>(grouped).size(), "no key in two groups: " + grouped);
            assertTrue(declared.containsAll(SettingGroups.SHIPPED.keySet()), "shipped values of declared keys");

            String text = Files.readString(page);
            int begin = text.indexOf(ConfigurationReference.TABLES_BEGIN);
            int end = text.indexOf(ConfigurationReference.TABLES_END);
            assertTrue(begin >= 0 && end > begin, "docs/configuration.md marks where its tables go");
            String tables = ConfigurationReference.tables(groups, SettingGroups.SHIPPED);
            String written = text.substring(0, begin) + tables
                    + text.substring(end + ConfigurationReference.TABLES_END.length() + 1);
            String shipped = ConfigurationReference.configurationFile(groups, SettingGroups.SHIPPED);
            if (REGENERATE) {
                Files.writeString(page, written);
                Files.writeString(conf, shipped);
            }
            assertEquals(written, Files.readString(page), "docs/configuration.md is stale: " + HOW);
            assertEquals(shipped, Files.readString(conf), "conf/gateway.conf is stale: " + HOW);
        }
    }

    private static final String HOW = "run bin/test --fast -pl spi,gateway -Dtest=DocumentedSettingsTest "
            + "-Dkvgate.regenerate=true to write it from the settings' declarations";

    @Test
    void theShippedConfigurationStartsWithItsValues() throws Exception {
        Configuration shipped = Configuration.load(Path.of(System.getProperty("kvgate.test.conf")), List.of());
        SettingGroups.SHIPPED.forEach((key, value) -> assertEquals(value, shipped.get(key).orElseThrow(), key));
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
