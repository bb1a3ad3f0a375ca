package kvgate.load.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The programs a run starts: memaslap, memcached and nutcracker, found on the PATH or in /usr/sbin; how a gateway
 * is started, to which its configuration overrides are added; and how kvgate-load is started, to which its
 * arguments are added (its JVM options included).
 */
record Tools(Path memaslap, Path memcached, Path nutcracker, List<String> gateway, List<String> generator) {
    /** The tools bin/bench runs: bin/gateway, and the generator's jar with the bench's JVM options for it. */
    static Tools find(Path root, BenchSettings settings) {
        List<String> generator = new ArrayList<>(List.of("java"));
        generator.addAll(Arrays.asList(settings.loadJavaOpts().split(" ")));
        generator.addAll(List.of("-jar", root.resolve("bench/load/target/kvgate-load.jar").toString()));
        return new Tools(find("memaslap", "memcaslap"), find("memcached"), find("nutcracker"),
                List.of(root.resolve("bin/gateway").toString()), generator);
    }

    /** The first of these programs on the PATH or in /usr/sbin. */
    static Path find(String... names) {
        for (String name : names) {
            Path found = locate(name);
            if (found != null) {
                return found;
            }
        }
        throw new IllegalStateException("no " + String.join(" or ", names) + " on the PATH (bin/bench installs "
                + "memcached, nutcracker and libmemcached-tools where it can)");
    }

    /** A program on the PATH or in /usr/sbin (where Debian puts nutcracker); null when there is none. */
    static Path locate(String name) {
        List<String> path = new ArrayList<>(Arrays.asList(System.getenv().getOrDefault("PATH", "").split(":")));
        path.add("/usr/sbin");
        for (String directory : path) {
            Path candidate = Path.of(directory, name);
            if (!directory.isEmpty() && Files.isExecutable(candidate)) {
                return candidate;
            }
        }
        return null;
    }
}
