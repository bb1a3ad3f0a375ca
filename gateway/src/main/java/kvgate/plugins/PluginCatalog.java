package kvgate.plugins;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import kvgate.config.StartupException;
import kvgate.spi.BackendFactory;
import kvgate.spi.RouteFactory;
import org.pf4j.DefaultPluginManager;
import org.pf4j.PluginState;
import org.pf4j.PluginWrapper;
import org.slf4j.LoggerFactory;

/**
 * The plugins found in the plugin directories, loaded and started, and the extensions they offer, by name.
 * Loading is all-or-nothing: any plugin that fails to load, start or instantiate its extensions stops start-up with
 * a message naming it, because a gateway silently running without a configured plugin would serve wrong data.
 *
 * <p>On a reload, plugins dropped into the directories since are loaded too ({@link #loadAdded}), so a new backend
 * or node type can be put in the tree without a restart. A plugin already loaded is never replaced or unloaded while
 * the gateway runs: its classes may be in use by the tree in force.
 */
public final class PluginCatalog implements AutoCloseable {

    /** An extension and the plugin it came from. */
    public record Found<T>(T extension, String pluginId) {
    }

    /** The extensions of the plugins loaded, by name; replaced whole when plugins are added. */
    private record Extensions(Map<String, Found<BackendFactory>> backends, Map<String, Found<RouteFactory>> routes) {
        Extensions copy() {
            return new Extensions(new LinkedHashMap<>(backends), new LinkedHashMap<>(routes));
        }
    }

    private final DefaultPluginManager manager;
    private final List<Path> directories;
    /** Where the plugin manager reports a plugin it cannot load; emptied before each loading. */
    private final List<String> failures;
    private volatile Extensions extensions;

    private PluginCatalog(DefaultPluginManager manager, List<Path> directories, List<String> failures,
                          Extensions extensions) {
        this.manager = manager;
        this.directories = directories;
        this.failures = failures;
        this.extensions = extensions;
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
        Extensions extensions = new Extensions(new LinkedHashMap<>(), new LinkedHashMap<>());
        if (failures.isEmpty()) {
            register(manager, manager.getPlugins(), extensions, failures);
        }
        if (!failures.isEmpty()) {
            unloadAll(manager);
            throw new StartupException(String.join("\n", failures));
        }
        return new PluginCatalog(manager, List.copyOf(directories), failures, extensions);
    }

    /**
     * Loads and starts the plugins that appeared in the plugin directories since they were last read, and adds their
     * extensions. All or nothing: when one of them fails to load, start or offer its extensions (or offers a name
     * already taken), every one loaded here is unloaded again and the catalog stays as it was.
     *
     * @return the ids of the plugins added
     * @throws StartupException naming each problem
     */
    public synchronized List<String> loadAdded() throws StartupException {
        Set<Path> loaded = loadedPaths(manager);
        List<String> added = new ArrayList<>();
        failures.clear();
        for (Map.Entry<Path, Path> candidate : candidates(directories, failures).entrySet()) {
            if (loaded.contains(candidate.getValue())) {
                continue;
            }
            int known = failures.size();
            try {
                String id = manager.loadPlugin(candidate.getKey());
                added.add(id);
                manager.startPlugin(id);
            } catch (RuntimeException e) {
                if (failures.size() == known) {
                    failures.add("plugin " + candidate.getKey().getFileName() + " cannot be loaded: "
                            + e.getMessage());
                }
            }
        }
        List<PluginWrapper> plugins = new ArrayList<>();
        added.forEach(id -> plugins.add(manager.getPlugin(id)));
        Extensions grown = extensions.copy();
        if (failures.isEmpty()) {
            register(manager, plugins, grown, failures);
        }
        if (!failures.isEmpty()) {
            for (String id : added) {
                unload(manager, id);
            }
            throw new StartupException(String.join("\n", failures));
        }
        extensions = grown;
        return added;
    }

    /** Registers the extensions of {@code plugins}, each of which must have started; problems go to failures. */
    private static void register(DefaultPluginManager manager, List<PluginWrapper> plugins, Extensions into,
                                 List<String> failures) {
        for (PluginWrapper plugin : plugins) {
            if (plugin.getPluginState() != PluginState.STARTED) {
                Throwable cause = plugin.getFailedException();
                failures.add("plugin " + plugin.getPluginId() + " (" + plugin.getPluginPath() + ") did not start"
                        + (cause == null ? "" : ": " + cause));
                continue;
            }
            String id = plugin.getPluginId();
            try {
                for (BackendFactory factory : manager.getExtensions(BackendFactory.class, id)) {
                    register(into.backends(), factory.type(), new Found<>(factory, id), "backend type", failures);
                }
                for (RouteFactory factory : manager.getExtensions(RouteFactory.class, id)) {
                    register(into.routes(), factory.type(), new Found<>(factory, id), "route node type", failures);
                }
                checkEveryExtensionLoads(plugin, failures);
            } catch (RuntimeException | LinkageError e) {
                failures.add("plugin " + id + " has an extension that cannot be created: " + e);
            }
        }
    }

    /**
     * PF4J skips, and only logs, a zip it cannot expand or a folder without a descriptor. Every zip, jar and folder
     * in a plugin directory must have become a plugin (a zip is loaded from the folder it expands into).
     */
    private static void checkEveryCandidateLoaded(List<Path> directories, DefaultPluginManager manager,
                                                  List<String> failures) {
        Set<Path> loaded = loadedPaths(manager);
        candidates(directories, failures).forEach((entry, expected) -> {
            if (!loaded.contains(expected)) {
                failures.add("plugin " + entry.getFileName() + " in " + entry.getParent().toAbsolutePath()
                        + " was not loaded: it is not a valid PF4J plugin (a zip or folder with "
                        + "plugin.properties and lib/, or a jar with plugin attributes in its manifest)");
            }
        });
    }

    private static Set<Path> loadedPaths(DefaultPluginManager manager) {
        Set<Path> loaded = new HashSet<>();
        for (PluginWrapper plugin : manager.getPlugins()) {
            loaded.add(plugin.getPluginPath().toAbsolutePath().normalize());
        }
        return loaded;
    }

    /**
     * What should be a plugin in the directories: each zip (loaded from the folder it expands into), jar, and folder
     * that is not a zip's expansion, mapped to the path the loaded plugin will have.
     */
    private static Map<Path, Path> candidates(List<Path> directories, List<String> failures) {
        Map<Path, Path> candidates = new LinkedHashMap<>();
        for (Path directory : directories) {
            try (var entries = Files.list(directory)) {
                for (Path entry : entries.sorted().toList()) {
                    String name = entry.getFileName().toString();
                    if (name.startsWith(".")) {
                        continue;
                    } else if (name.endsWith(".zip")) {
                        candidates.put(entry, entry.resolveSibling(name.substring(0, name.length() - ".zip".length()))
                                .toAbsolutePath().normalize());
                    } else if (name.endsWith(".jar")
                            || (Files.isDirectory(entry) && !Files.exists(entry.resolveSibling(name + ".zip")))) {
                        candidates.put(entry, entry.toAbsolutePath().normalize());
                    }
                }
            } catch (IOException e) {
                failures.add("cannot list plugin directory " + directory.toAbsolutePath() + ": " + e.getMessage());
            }
        }
        return candidates;
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
        return Collections.unmodifiableMap(extensions.backends());
    }

    /** Route node factories by type (the gateway's own node types are not among them). */
    public Map<String, Found<RouteFactory>> routes() {
        return Collections.unmodifiableMap(extensions.routes());
    }

    @Override
    public void close() {
        unloadAll(manager);
    }

    // One by one over a copy: PF4J 3.15's stopPlugins() modifies the list it iterates and fails.
    private static void unloadAll(DefaultPluginManager manager) {
        for (PluginWrapper plugin : new ArrayList<>(manager.getPlugins())) {
            unload(manager, plugin.getPluginId());
        }
    }

    private static void unload(DefaultPluginManager manager, String id) {
        try {
            PluginWrapper plugin = manager.getPlugin(id);
            if (plugin != null && plugin.getPluginState() == PluginState.STARTED) {
                manager.stopPlugin(id);
            }
            manager.unloadPlugin(id);
        } catch (RuntimeException e) {
            LoggerFactory.getLogger(PluginCatalog.class).warn("plugin {} did not unload cleanly", id, e);
        }
    }
}
