package kvgate.mpdb;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import kvgate.testing.TestGateway;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An MPDB client written with Python's msgpack library (Debian's python3-msgpack, which {@code bin/test} installs),
 * as the protocol's own sample client is: the gateway's datagrams must be read and written by an independent
 * MsgPack implementation, over IPv4 and IPv6.
 */
@Tag("servers")
class PythonMsgpackClientTest {

    @Test
    void aPythonClientStoresAndReadsEveryValueTypeOverIpv4AndIpv6(@TempDir Path dir) throws Exception {
        Path script = dir.resolve("python_client.py");
        try (InputStream in = getClass().getResourceAsStream("/mpdb/python_client.py")) {
            Files.copy(in, script);
        }
        try (TestGateway gateway = TestGateway.start(Map.of("mpdb.bind", "0.0.0.0"))) {
            assertEquals("OK", run(script, "127.0.0.1", gateway.mpdbPort()));
            assertEquals("OK", run(script, "::1", gateway.mpdbPort()));
        }
    }

    private static String run(Path script, String host, int port) throws IOException, InterruptedException {
        // Debian's python3, which has the python3-msgpack package, even where another python3 comes first on PATH.
        String python3 = Files.isExecutable(Path.of("/usr/bin/python3")) ? "/usr/bin/python3" : "python3";
        Process python = new ProcessBuilder(python3, script.toString(), host, Integer.toString(port))
                .redirectErrorStream(true).start();
        if (!python.waitFor(30, TimeUnit.SECONDS)) {
            python.destroyForcibly();
            throw new AssertionError("the Python client did not finish");
        }
        return new String(python.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
    }
}
