package kvgate.app;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import kvgate.net.GatewayVersion;
import kvgate.testing.TestGateway;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What {@code bin/gateway --version} and {@code --help} print, and that other arguments start the gateway. */
class GatewayMainTest {

    /** An installation whose configuration names the plugins the tests load. */
    @TempDir
    static Path home;

    @BeforeAll
    static void install() throws Exception {
        Files.createDirectories(home.resolve("conf"));
        Files.writeString(home.resolve("conf").resolve("gateway.conf"),
                "plugins.dir = " + TestGateway.pluginsDirectory().toAbsolutePath() + "\n");
    }

    private static String printed(String... args) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        assertTrue(GatewayMain.answered(args, new PrintStream(bytes, true, StandardCharsets.UTF_8), home));
        return bytes.toString(StandardCharsets.UTF_8);
    }

    @Test
    void versionAndHelpAreAnsweredWithoutStarting() {
        String version = printed("--version");
        assertTrue(version.equals("kvgate " + GatewayVersion.VERSION + " (build " + GatewayVersion.BUILD + ")"
                + System.lineSeparator()), version);
        assertTrue(GatewayVersion.BUILD.matches("[0-9a-f]{7,40}|unknown"), GatewayVersion.BUILD);
        assertTrue(printed("-V").startsWith("kvgate "));
        String help = printed("--help");
        assertTrue(help.startsWith("usage: bin/gateway [--config=FILE] [--KEY=VALUE ...]"), help);
        assertTrue(help.contains("\n  memcached.port = 11211\n") && help.contains("\n  request_timeout_s = 30\n")
                && help.contains("\n  memcached.sasl_pwdb = \n"), help);
        // Grouped, the plugins' keys among them: a backend's, and a route node type's.
        assertTrue(help.contains("\nThe redis backend (backend = redis):\n  redis.uri = \n"), help);
        assertTrue(help.contains("\nRoute node type shadow (routes.<name>.<key>):\n  primary = \n"), help);
        assertTrue(help.indexOf("\nTLS:\n") < help.indexOf("\n  tls.cert = "), "a key under its group");
        assertTrue(help.lines().allMatch(line -> line.length() <= 110), "lines fit a terminal");
        assertTrue(printed("-h").equals(help));
        assertTrue(printed("--config=/etc/kvgate/gateway.conf", "--version").startsWith("kvgate "),
                "as bin/gateway passes it, after the configuration file");
    }

    @Test
    void anythingElseStartsTheGateway() {
        PrintStream nowhere = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
        assertFalse(GatewayMain.answered(new String[0], nowhere, home));
        assertFalse(GatewayMain.answered(new String[] {"--memcached.port=1"}, nowhere, home));
        assertFalse(GatewayMain.answered(new String[] {"--help", "--version"}, nowhere, home));
    }
}
