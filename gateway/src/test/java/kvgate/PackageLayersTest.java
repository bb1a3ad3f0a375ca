package kvgate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.spi.ToolProvider;
import org.junit.jupiter.api.Test;

/**
 * The gateway's packages stand on floors, and a package uses only packages on floors below its own: no package on a
 * floor uses another of the same floor (the protocols know nothing of each other), and so no two packages use each
 * other. The arrows are read from the compiled classes by the JDK's jdeps, as docs/contributing.md
 * shows, so a use through a fully qualified name counts as much as an import.
 */
class PackageLayersTest {
    /** The floors, top first. A new package must be given its floor here. */
    static final List<Set<String>> FLOORS = List.of(
            Set.of("kvgate.app"),
            Set.of("kvgate.admin"),
            Set.of("kvgate.memcached", "kvgate.counter", "kvgate.okuyama", "kvgate.mpdb"),
            Set.of("kvgate.memcached.couchbase"),
            Set.of("kvgate.memcached.binary", "kvgate.memcached.text"),
            Set.of("kvgate.net"),
            Set.of("kvgate.collections", "kvgate.route"),
            Set.of("kvgate.route.generic"),
            Set.of("kvgate.dispatch", "kvgate.plugins", "kvgate.counterstore"),
            Set.of("kvgate.config", "kvgate.metrics"));

    @Test
    void everyPackageUsesOnlyPackagesOnTheFloorsBelowIt() {
        Map<String, Integer> floorOf = new HashMap<>();
        for (int floor = 0; floor < FLOORS.size(); floor++) {
            for (String name : FLOORS.get(floor)) {
                assertEquals(null, floorOf.put(name, floor), name + " stands on two floors");
            }
        }
        Map<String, Set<String>> uses = packageUses();
        Set<String> unplaced = new TreeSet<>(uses.keySet());
        unplaced.removeAll(floorOf.keySet());
        assertEquals(Set.of(), unplaced, "packages without a floor in PackageLayersTest.FLOORS");
        List<String> upward = new ArrayList<>();
        uses.forEach((from, targets) -> {
            for (String to : targets) {
                Integer target = floorOf.get(to);
                if (target != null && !to.equals(from) && target <= floorOf.get(from)) {
                    upward.add(from + " -> " + to);
                }
            }
        });
        assertEquals(List.of(), upward, "uses of a package on the same floor or one above");
    }

    /** What jdeps says each gateway package uses: its lines {@code kvgate.a -> kvgate.b  classes}. */
    private static Map<String, Set<String>> packageUses() {
        Path classes = Path.of(System.getProperty("kvgate.test.classes", "target/classes"));
        assertTrue(Files.isDirectory(classes), classes + " holds no compiled classes");
        ToolProvider jdeps = ToolProvider.findFirst("jdeps").orElseThrow();
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int exit = jdeps.run(new PrintWriter(out), new PrintWriter(err), "-verbose:package", "-e", "kvgate\\..*",
                classes.toString());
        assertEquals(0, exit, err.toString());
        Map<String, Set<String>> uses = new HashMap<>();
        for (String line : out.toString().split("\n")) {
            String[] words = line.strip().split("\\s+");
            if (words.length >= 3 && words[1].equals("->") && words[0].startsWith("kvgate.")
                    && !words[0].startsWith("kvgate.spi")) {
                uses.computeIfAbsent(words[0], name -> new TreeSet<>()).add(words[2]);
            }
        }
        assertTrue(uses.size() > 10, "jdeps listed too few packages:\n" + out);
        return uses;
    }
}
