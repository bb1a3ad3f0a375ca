package kvgate.admin;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Map;
import kvgate.metrics.GatewayMetrics;
import kvgate.net.Protocol;
import kvgate.route.RouteTree;
import kvgate.spi.Namespace;
import org.junit.jupiter.api.Test;

/** The command loop alone, over a stand-in gateway whose parts fail as each test says. */
class AdminCommandsTest {

    /** A gateway whose route tree cannot be read and whose reload refuses. */
    private static final class Broken implements AdminCommands.Gateway {
        @Override
        public String reload() throws Exception {
            throw new IllegalStateException("refused for the test\nsecond line");
        }

        @Override
        public RouteTree routes() {
            throw new IllegalStateException("no tree");
        }

        @Override
        public Map<String, Protocol.Naming> namings() {
            return Map.of("okuyama", Protocol.Naming.single(Namespace.DEFAULT, "okuyama"));
        }

        @Override
        public GatewayMetrics metrics() {
            return new GatewayMetrics();
        }

        @Override
        public String version() {
            return "test";
        }
    }

    private final AdminCommands commands = new AdminCommands(new Broken());

    @Test
    void aCommandThatFailsStillEndsWithAnErrorLine() {
        assertEquals(List.of("ERROR the command failed: java.lang.IllegalStateException: no tree"),
                commands.run("routes"));
        assertEquals(List.of("ERROR the command failed: java.lang.IllegalStateException: no tree"),
                commands.run("explain okuyama k"));
    }

    @Test
    void aRefusedReloadIsOneErrorLineHoweverManyLinesItsReasonHas() {
        assertEquals(List.of("ERROR reload refused, the configuration in force stays: refused for the test | "
                + "second line"), commands.run("reload"));
    }

    @Test
    void quitEndsWithoutAReplyAndAnEmptyLineIsHelp() {
        assertEquals(List.of(), commands.run("quit"));
        assertEquals("END", commands.run("").get(commands.run("").size() - 1));
        assertEquals(List.of("VERSION test", "END"), commands.run("  VERSION  "));
    }
}
