package kvgate.route;

import static kvgate.route.RouteTree.BACKENDS;
import static kvgate.route.RouteTree.DEFAULT_BACKEND;
import static kvgate.route.RouteTree.ROUTES;
import static kvgate.route.RouteTree.TYPE;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import kvgate.config.Configuration;
import kvgate.config.ConfigurationException;
import kvgate.spi.RouteFactory;
import kvgate.spi.Setting;

/**
 * The backend instances and route nodes the configuration declares, by name and type, read before any value is
 * checked, so that each one's settings can be declared for validation and the tree then built from them.
 *
 * @param backends instance name -> backend type, {@code default} excluded
 * @param routes route name -> node type
 */
public record RouteDeclarations(Map<String, String> backends, Map<String, String> routes) {
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_-]{1,100}");

    /** Finds the {@code backends.<name>.type} and {@code routes.<name>.type} keys among the configured ones. */
    public static RouteDeclarations of(Configuration configuration) throws ConfigurationException {
        Map<String, String> backends = new LinkedHashMap<>();
        Map<String, String> routes = new LinkedHashMap<>();
        List<String> problems = new ArrayList<>();
        for (String key : configuration.keys()) {
            Map<String, String> into = key.startsWith(BACKENDS) ? backends : key.startsWith(ROUTES) ? routes : null;
            String suffix = "." + TYPE;
            if (into == null || !key.endsWith(suffix)) {
                continue;
            }
            String name = key.substring(key.indexOf('.') + 1, key.length() - suffix.length());
            if (!NAME.matcher(name).matches()) {
                problems.add(key + ": a name is 1 to 100 characters of A-Z a-z 0-9 _ -, not '" + name + "'");
            } else if (into == backends && name.equals(DEFAULT_BACKEND)) {
                problems.add(key + ": the name " + DEFAULT_BACKEND + " is the backend of 'backend = <type>'; "
                        + "choose another");
            } else {
                into.put(name, configuration.get(key).orElse("").strip());
            }
        }
        for (String name : routes.keySet()) {
            if (backends.containsKey(name)) {
                problems.add("'" + name + "' names both a route and a backend instance; names must be unique");
            }
        }
        if (!problems.isEmpty()) {
            throw new ConfigurationException(String.join("\n", problems));
        }
        return new RouteDeclarations(backends, routes);
    }

    /** The keys every declared instance and route may have, with their defaults: {@code type} and its type's. */
    public List<Setting> settings(Map<String, List<Setting>> backendTypes, Map<String, RouteFactory> routeTypes)
            throws ConfigurationException {
        List<Setting> settings = new ArrayList<>();
        List<String> problems = new ArrayList<>();
        backends.forEach((name, type) -> {
            List<Setting> declared = backendTypes.get(type);
            if (declared == null) {
                problems.add(BACKENDS + name + "." + TYPE + " = " + type + ": no backend plugin of that type; "
                        + "types found: " + backendTypes.keySet());
            } else {
                settings.add(Setting.text(BACKENDS + name + "." + TYPE, type, "backend type"));
                declared.forEach(setting -> settings.add(setting.withKey(BACKENDS + name + "." + setting.key())));
            }
        });
        routes.forEach((name, type) -> {
            RouteFactory factory = routeTypes.get(type);
            if (factory == null) {
                problems.add(ROUTES + name + "." + TYPE + " = " + type + ": no route node of that type; "
                        + "types found: " + routeTypes.keySet());
            } else {
                settings.add(Setting.text(ROUTES + name + "." + TYPE, type, "route node type"));
                factory.settings().forEach(setting ->
                        settings.add(setting.withKey(ROUTES + name + "." + setting.key())));
            }
        });
        if (!problems.isEmpty()) {
            throw new ConfigurationException(String.join("\n", problems));
        }
        return settings;
    }

    /** The declared names as keys ({@code backends.a, routes.b}), for messages. */
    String describe() {
        List<String> names = new ArrayList<>();
        backends.keySet().forEach(name -> names.add(BACKENDS + name));
        routes.keySet().forEach(name -> names.add(ROUTES + name));
        return String.join(", ", names);
    }
}
