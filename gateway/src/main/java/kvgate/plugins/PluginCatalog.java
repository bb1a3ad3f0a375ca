package kvgate.plugins;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import kvgate.server.StartupException;
import kvgate.spi.BackendFactory;
import kvgate.spi.OperationFilter;
import kvgate.spi.RouteFactory;
import org.pf4j.DefaultPluginManager;
import org.pf4j.PluginState;
import org.pf4j.PluginWrapper;
import org.slf4j.LoggerFactory;

/**
 * The plugins found in the plugin directories, loaded and started, and the extensions they offer, by name.
 * Loading is all-or-nothing: any plugin that fails to load, start or instantiate its extensions stops start-up with
 * a message naming it, because a gateway silently running without a configured plugin would serve wrong data.
 */
public final class PluginCatalog implements AutoCloseable {

    /** An extension and the plugin it came from. */
    public record Found<T>(T extension, String pluginId) {
    }

    private final DefaultPluginManager manager;
    private final Map<String, Found<BackendFactory>> backends;
    private final Map<String, Found<OperationFilter>> filters;
    private final Map<String, Found<RouteFactory>> routes;

    private PluginCatalog(DefaultPluginManager manager, Map<String, Found<BackendFactory>> backends,
                          Map<String, Found<OperationFilter>> filters, Map<String, Found<RouteFactory>> routes) {
        this.manager = manager;
        this.backends = backends;
        this.filters = filters;
        this.routes = routes;
    }

    public static PluginCatalog load(List<Path> directories) throws StartupException {
        for (Path directory : directories) {
            if (!Files.isDirectory(directory)) {
                throw new StartupException("plugin directory " + directory.toAbsolutePath() + " does not exist");
            }
        }
        List<String> failures = new ArrayList<>();
        DefaultPluginManager manager = new DefaultPluginManager(directories) {
            @Override
            protected PluginWrapper loadPluginFromPath(Path pluginPath) {
                try {
                    return super.loadPluginFromPath(pluginPath);
                } catch (RuntimeException e) {
                    failures.add("plugin " + pluginPath.getFileName() + " cannot be loaded: " + e.getMessage());
                    throw e;
                }
            }
        };
        try {
            manager.loadPlugins();
            manager.startPlugins();
        } catch (RuntimeException e) {
            failures.add("plugins cannot be loaded: " + e.getMessage());
        }
        checkEveryCandidateLoaded(directories, manager, failures);
        for (PluginWrapper plugin : manager.getPlugins()) {
            if (plugin.getPluginState() != PluginState.STARTED) {
                Throwable cause = plugin.getFailedException();
                failures.add("plugin " + plugin.getPluginId() + " (" + plugin.getPluginPath() + ") did not start"
                        + (cause == null ? "" : ": " + cause));
            }
        }
        Map<String, Found<BackendFactory>> backends = new LinkedHashMap<>();
        Map<String, Found<OperationFilter>> filters = new LinkedHashMap<>();
        Map<String, Found<RouteFactory>> routes = new LinkedHashMap<>();
        if (failures.isEmpty()) {
            for (PluginWrapper plugin : manager.getStartedPlugins()) {
                String id = plugin.getPluginId();
                try {
                    for (BackendFactory factory : manager.getExtensions(BackendFactory.class, id)) {
                        register(backends, factory.type(), new Found<>(factory, id), "backend type", failures);
                    }
                    for (OperationFilter filter : manager.getExtensions(OperationFilter.class, id)) {
                        register(filters, filter.name(), new Found<>(filter, id), "filter", failures);
                    }
                    for (RouteFactory factory : manager.getExtensions(RouteFactory.class, id)) {
                        register(routes, factory.type(), new Found<>(factory, id), "route node type", failures);
                    }
                    checkEveryExtensionLoads(plugin, failures);
                } catch (RuntimeException | LinkageError e) {
                    failures.add("plugin " + id + " has an extension that cannot be created: " + e);
                }
            }
        }
        if (!failures.isEmpty()) {
            unloadAll(manager);
            throw new StartupException(String.join("\n", failures));
        }
        return new PluginCatalog(manager, backends, filters, routes);
    }

    /**
     * PF4J skips, and only logs, a zip it cannot expand or a folder without a descriptor. Every zip, jar and folder
     * in a plugin directory must have become a plugin (a zip is loaded from the folder it expands into).
     */
    private static void checkEveryCandidateLoaded(List<Path> directories, DefaultPluginManager manager,
                                                  List<String> failures) {
        Set<Path> loaded = new HashSet<>();
        for (PluginWrapper plugin : manager.getPlugins()) {
            loaded.add(plugin.getPluginPath().toAbsolutePath().normalize());
        }
        for (Path directory : directories) {
            try (var entries = Files.list(directory)) {
                for (Path entry : entries.toList()) {
                    String name = entry.getFileName().toString();
                    Path expected;
                    if (name.startsWith(".")) {
                        continue;
                    } else if (name.endsWith(".zip")) {
                        expected = entry.resolveSibling(name.substring(0, name.length() - ".zip".length()));
                    } else if (name.endsWith(".jar")
                            || (Files.isDirectory(entry) && !Files.exists(entry.resolveSibling(name + ".zip")))) {
                        expected = entry;
                    } else {
                        continue;
                    }
                    if (!loaded.contains(expected.toAbsolutePath().normalize())) {
                        failures.add("plugin " + name + " in " + directory.toAbsolutePath()
                                + " was not loaded: it is not a valid PF4J plugin (a zip or folder with "
                                + "plugin.properties and lib/, or a jar with plugin attributes in its manifest)");
                    }
                }
            } catch (IOException e) {
                failures.add("cannot list plugin directory " + directory.toAbsolutePath() + ": " + e.getMessage());
            }
        }
    }

    // PF4J skips (and only logs) an indexed extension class it cannot load; a broken jar must not pass unnoticed.
    private static void checkEveryExtensionLoads(PluginWrapper plugin, List<String> failures) {
        for (String className : plugin.getPluginManager().getExtensionClassNames(plugin.getPluginId())) {
            try {
                Class.forName(className, false, plugin.getPluginClassLoader());
            } catch (ClassNotFoundException | LinkageError e) {
                failures.add("plugin " + plugin.getPluginId() + " lists extension " + className
                        + " that cannot be loaded: " + e);
            }
        }
    }

    private static <T> void register(Map<String, Found<T>> found, String name, Found<T> extension, String what,
                                     List<String> failures) {
        Found<T> earlier = found.putIfAbsent(name, extension);
        if (earlier != null) {
            failures.add(what + " '" + name + "' is offered by two plugins: " + earlier.pluginId() + " and "
                    + extension.pluginId());
        }
    }

    /** Backend factories by type. */
    public Map<String, Found<BackendFactory>> backends() {
        return backends;
    }

    /** Operation filters by name. */
    public Map<String, Found<OperationFilter>> filters() {
        return filters;
    }

    /** Route node factories by type (the gateway's own node types are not among them). */
    public Map<String, Found<RouteFactory>> routes() {
        return routes;
    }

    @Override
    public void close() {
        unloadAll(manager);
    }

    // One by one over a copy: PF4J 3.15's stopPlugins() modifies the list it iterates and fails.
    private static void unloadAll(DefaultPluginManager manager) {
        for (PluginWrapper plugin : new ArrayList<>(manager.getPlugins())) {
            try {
                if (plugin.getPluginState() == PluginState.STARTED) {
                    manager.stopPlugin(plugin.getPluginId());
                }
                manager.unloadPlugin(plugin.getPluginId());
            } catch (RuntimeException e) {
                LoggerFactory.getLogger(PluginCatalog.class).warn("plugin {} did not unload cleanly",
                        plugin.getPluginId(), e);
            }
        }
    }
}
