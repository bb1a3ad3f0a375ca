package kvgate.admin;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import kvgate.metrics.GatewayMetrics;
import kvgate.net.Protocol;
import kvgate.route.BackendRoute;
import kvgate.route.RouteTree;
import kvgate.spi.Namespace;
import kvgate.spi.Operation;
import kvgate.spi.StoreMode;

/**
 * The admin port's commands, one request line each. A reply is any number of lines and then one last line, which is
 * {@code END} when the command did its work or {@code ERROR <why>} when it did not, so a script reads up to either.
 */
public final class AdminCommands {
    static final String END = "END";
    /** The help after the explain lines, which come from the protocols. */
    private static final String HELP = """
            explain namespace <namespace> <key> [<operation>]
                the path a request would take through the route tree, one line a node; nothing is sent.
                <operation>: get (the default), set, add, replace, append, delete, incr, touch,
                or, for the whole namespace (<key> is then ignored, give -): scan, tags, search, flush
            reload
                reads the configuration again and puts its route tree in force, or says why not
            routes
                the nodes and backend instances of the tree in force
            stats
                every meter of the gateway that is not zero, one per line, then each backend instance's
                own figures that are not zero (the local store's items, bytes and evictions, ...)
            version
            quit""";

    /** What the commands act on. */
    public interface Gateway {
        /** Reloads the configuration; returns what changed, or throws with why not. */
        String reload() throws Exception;

        RouteTree routes();

        /** How each protocol that has namespaces names them, by the protocol's name. */
        Map<String, Protocol.Naming> namings();

        GatewayMetrics metrics();

        String version();
    }

    private final Gateway gateway;

    public AdminCommands(Gateway gateway) {
        this.gateway = gateway;
    }

    /** A command that cannot be carried out as given: its message is the reply's {@code ERROR} line. */
    static final class Refused extends Exception {
        Refused(String message) {
            super(message, null, false, false);
        }
    }

    /** The reply to one request line, its last line {@code END} or {@code ERROR ...}; empty for {@code quit}. */
    public List<String> run(String line) {
        String[] words = line.strip().split("\\s+");
        String command = words[0].toLowerCase(Locale.ROOT);
        try {
            List<String> reply = switch (command) {
                case "explain" -> explain(Arrays.copyOfRange(words, 1, words.length));
                case "reload" -> List.of("OK " + reload());
                case "routes" -> gateway.routes().describe();
                case "stats" -> stats();
                case "version" -> List.of("VERSION " + gateway.version());
                case "help", "" -> help();
                case "quit" -> null;
                default -> throw new Refused("unknown command '" + words[0] + "'; try help");
            };
            if (reply == null) {
                return List.of();
            }
            List<String> lines = new ArrayList<>(reply);
            lines.add(END);
            return lines;
        } catch (Refused refused) {
            return List.of("ERROR " + oneLine(refused.getMessage()));
        } catch (RuntimeException e) {
            // A command must always end with its last line, or the operator's client waits for ever.
            return List.of("ERROR the command failed: " + oneLine(String.valueOf(e)));
        }
    }

    private String reload() throws Refused {
        try {
            return gateway.reload();
        } catch (Exception e) {
            throw new Refused("reload refused, the configuration in force stays: " + e.getMessage());
        }
    }

    private List<String> stats() {
        List<String> lines = new ArrayList<>();
        // Hundreds of verb and status pairs never happen; a meter is listed once it is not zero.
        gateway.metrics().meters().forEach((name, value) -> {
            if (!value.equals("0")) {
                lines.add(name + " " + value);
            }
        });
        // What only a backend knows (what it holds, what it evicted), as the memcached protocol's STAT has it: a
        // client of another protocol has no other way to see it.
        for (BackendRoute instance : gateway.routes().instances()) {
            instance.backend().stats().forEach((name, value) -> {
                if (!value.equals("0")) {
                    lines.add("backend." + instance.name() + "." + name + " " + value);
                }
            });
        }
        return lines;
    }

    private List<String> help() {
        List<String> lines = new ArrayList<>();
        gateway.namings().forEach((protocol, naming) -> lines.add("explain " + protocol
                + (naming.where().isEmpty() ? "" : " " + naming.where()) + " <key> [<operation>]"));
        lines.addAll(HELP.lines().toList());
        return lines;
    }

    private List<String> explain(String[] words) throws Refused {
        if (words.length < 2) {
            throw new Refused("explain needs a protocol and a key; try help");
        }
        String protocol = words[0].toLowerCase(Locale.ROOT);
        Protocol.Naming naming = gateway.namings().get(protocol);
        int keyAt = naming != null && naming.where().isEmpty() ? 1 : 2;
        if (words.length <= keyAt || words.length > keyAt + 2) {
            throw new Refused("explain " + protocol + ": expected " + (keyAt == 1 ? "<key>" : "<where> <key>")
                    + " [<operation>]; try help");
        }
        Protocol.Named named;
        if (protocol.equals("namespace")) {
            named = new Protocol.Named(namespace(words[1]), "namespace " + words[1]);
        } else if (naming != null) {
            try {
                named = naming.name().apply(keyAt == 1 ? "" : words[1]);
            } catch (IllegalArgumentException e) {
                throw new Refused(e.getMessage());
            }
        } else {
            List<String> known = new ArrayList<>(gateway.namings().keySet());
            known.add("namespace");
            throw new Refused("explain: unknown protocol '" + words[0] + "'; one of " + String.join(", ", known));
        }
        Namespace namespace = named.namespace();
        byte[] key = words[keyAt].getBytes(StandardCharsets.UTF_8);
        String verb = words.length > keyAt + 1 ? words[keyAt + 1].toLowerCase(Locale.ROOT) : "get";
        Operation operation = operation(verb, namespace, key);
        List<String> lines = new ArrayList<>();
        lines.add(verb + (operation instanceof Operation.KeyOperation ? " of key " + words[keyAt] : "")
                + " in namespace " + namespace + " (" + named.described() + ")");
        lines.addAll(gateway.routes().explain(operation));
        return lines;
    }

    private static Namespace namespace(String name) throws Refused {
        try {
            return new Namespace(name);
        } catch (IllegalArgumentException e) {
            throw new Refused(e.getMessage());
        }
    }

    /** An operation of the kind named, with placeholder values where the route does not look. */
    private static Operation operation(String verb, Namespace namespace, byte[] key) throws Refused {
        byte[] none = new byte[0];
        return switch (verb) {
            case "get" -> new Operation.Get(namespace, key);
            case "set" -> new Operation.Store(namespace, key, StoreMode.SET, none, 0, 0, 0);
            case "add" -> new Operation.Store(namespace, key, StoreMode.ADD, none, 0, 0, 0);
            case "replace" -> new Operation.Store(namespace, key, StoreMode.REPLACE, none, 0, 0, 0);
            case "append" -> new Operation.Store(namespace, key, StoreMode.APPEND, none, 0, 0, 0);
            case "delete" -> new Operation.Delete(namespace, key, 0);
            case "incr" -> new Operation.Arithmetic(namespace, key, true, 1, 0, false, 0, 0);
            case "touch" -> new Operation.Touch(namespace, key, 0);
            case "scan" -> new Operation.Scan(namespace, 1);
            case "tags" -> new Operation.TaggedKeys(namespace, key, false);
            case "search" -> new Operation.Search(namespace, List.of(new Operation.Search.Word("x", Set.of("x"))),
                    true, "");
            case "flush" -> new Operation.Flush(namespace, 0);
            default -> throw new Refused("unknown operation '" + verb + "'; try help");
        };
    }

    private static String oneLine(String message) {
        return message == null ? "" : String.join(" | ", message.strip().lines().toList());
    }
}
