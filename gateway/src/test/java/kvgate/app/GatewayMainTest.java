package kvgate.app;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import kvgate.net.GatewayVersion;
import org.junit.jupiter.api.Test;

/** What {@code bin/gateway --version} and {@code --help} print, and that other arguments start the gateway. */
class GatewayMainTest {

    private static String printed(String... args) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        assertTrue(GatewayMain.answered(args, new PrintStream(bytes, true, StandardCharsets.UTF_8)));
        return bytes.toString(StandardCharsets.UTF_8);
    }

    @Test
    void versionAndHelpAreAnsweredWithoutStarting() {
        assertTrue(printed("--version").equals("kvgate " + GatewayVersion.VERSION + System.lineSeparator()));
        assertTrue(printed("-V").startsWith("kvgate "));
        String help = printed("--help");
        assertTrue(help.startsWith("usage: bin/gateway [--config=FILE] [--KEY=VALUE ...]"), help);
        assertTrue(help.contains("\n  memcached.port = 11211\n") && help.contains("\n  request_timeout_s = 30\n")
                && help.contains("\n  memcached.sasl_pwdb = \n"), help);
        assertTrue(help.lines().allMatch(line -> line.length() <= 110), "lines fit a terminal");
        assertTrue(printed("-h").equals(help));
        assertTrue(printed("--config=/etc/kvgate/gateway.conf", "--version").startsWith("kvgate "),
                "as bin/gateway passes it, after the configuration file");
    }

    @Test
    void anythingElseStartsTheGateway() {
        PrintStream nowhere = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
        assertFalse(GatewayMain.answered(new String[0], nowhere));
        assertFalse(GatewayMain.answered(new String[] {"--memcached.port=1"}, nowhere));
        assertFalse(GatewayMain.answered(new String[] {"--help", "--version"}, nowhere));
    }
}
