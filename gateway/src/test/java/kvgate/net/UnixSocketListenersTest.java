package kvgate.net;

import static kvgate.testing.OkuyamaClient.b64;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import kvgate.config.StartupException;
import kvgate.testing.BinaryClient;
import kvgate.testing.CounterClient;
import kvgate.testing.OkuyamaClient;
import kvgate.testing.TestGateway;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code memcached.socket}, {@code okuyama.socket}, {@code counter.socket} and {@code socket_mode}: each stream
 * protocol served on a Unix domain socket beside its port, on every transport, as memcached's -s and -a. A read on
 * a Unix socket has no timeout of its own, hence the class's.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
@Tag("servers")
class UnixSocketListenersTest {
    @TempDir
    Path directory;

    /** The settings that put the three stream protocols on sockets in the test's directory, then {@code more}. */
    private Map<String, String> sockets(String... more) {
        return TestGateway.with(Map.of(
                "memcached.socket", directory.resolve("memcached.sock").toString(),
                "okuyama.socket", directory.resolve("okuyama.sock").toString(),
                "counter.socket", directory.resolve("counter.sock").toString()), more);
    }

    @ParameterizedTest
    @ValueSource(strings = {"epoll", "io_uring", "nio"})
    void everyStreamProtocolIsServedOnItsSocketAsOnItsPortOrTheTransportIsRefused(String transport)
            throws Exception {
        if (!TransportTest.availableElseRefused(transport)) {
            return;
        }
        try (TestGateway gateway = TestGateway.start(sockets("io_transport", transport))) {
            try (BinaryClient onSocket = new BinaryClient(directory.resolve("memcached.sock"));
                 BinaryClient onPort = new BinaryClient(gateway.port())) {
                assertNull(onSocket.socket());
                assertEquals(0, onSocket.call(BinaryClient.SET, BinaryClient.storeExtras(7, 0),
                        BinaryClient.bytes("k"), BinaryClient.bytes("over the socket"), 0).status());
                assertEquals("over the socket", onPort.get("k").valueText());
                assertEquals(7, onSocket.get("k").flags());
                // The cluster map names the TCP port, which an SDK given it can connect to: the socket has none.
                assertEquals(0, onSocket.call(BinaryClient.SELECT_BUCKET, new byte[0], BinaryClient.bytes("default"),
                        new byte[0], 0).status());
                String map = new String(onSocket.call(BinaryClient.GET_CLUSTER_CONFIG, new byte[0], new byte[0],
                        new byte[0], 0).value(), StandardCharsets.UTF_8);
                assertTrue(map.contains("\"direct\":" + gateway.port()), map);
            }
            try (OkuyamaClient okuyama = new OkuyamaClient(directory.resolve("okuyama.sock"))) {
                assertEquals("1,true,OK", okuyama.call("1," + b64("oku") + ",(B),0," + b64("value")));
                assertEquals("2,true," + b64("value"), okuyama.call("2," + b64("oku")));
            }
            try (CounterClient onPort = new CounterClient(gateway.counterPort())) {
                CounterClient holder = new CounterClient(directory.resolve("counter.sock"));
                assertEquals(0, holder.acquire("held", 3, 5).status());
                assertEquals(3, onPort.get("held").u32(0));
                holder.close(); // the socket's close gives the holding back, as a TCP connection's does
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                for (CounterClient.Response held = onPort.get("held"); held.status() == 0 && held.u32(0) == 3;
                     held = onPort.get("held")) {
                    assertTrue(System.nanoTime() < deadline, "the closed connection's holding given back");
                    Thread.sleep(10);
                }
            }
            assertEquals("rwx------", PosixFilePermissions.toString(
                    Files.getPosixFilePermissions(directory.resolve("memcached.sock"))), "socket_mode's default");
        }
        assertEquals(List.of(), entries(), "every socket removed when the gateway stopped, and no directory it was "
                + "bound in first left behind");
    }

    /** The names in the test's directory. */
    private List<String> entries() throws IOException {
        try (Stream<Path> listed = Files.list(directory)) {
            return listed.map(path -> path.getFileName().toString()).sorted().collect(Collectors.toList());
        }
    }

    /** A socket another server put at the path while the gateway ran is that server's: the stop leaves it. */
    @Test
    void aSocketAnotherServerPutAtThePathIsLeftAloneAtStop() throws Exception {
        Path path = directory.resolve("okuyama.sock");
        try (ServerSocketChannel other = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            try (TestGateway gateway = TestGateway.start(sockets())) {
                Files.delete(path);
                other.bind(UnixDomainSocketAddress.of(path));
            }
            assertTrue(Files.exists(path), "the other server's socket is still there");
            try (SocketChannel client = SocketChannel.open(UnixDomainSocketAddress.of(path))) {
                assertTrue(client.isConnected());
            }
        }
    }

    /** A start refused at one socket removes the sockets it had bound already. */
    @Test
    void aStartRefusedAtOneSocketRemovesThoseBoundBefore() throws Exception {
        Files.writeString(directory.resolve("counter.sock"), "not a socket");
        StartupException refused = assertThrows(StartupException.class, () -> TestGateway.start(sockets()));
        assertTrue(refused.getMessage().contains("counter.sock"), refused.getMessage());
        assertEquals(List.of("counter.sock"), entries(), "the memcached socket, bound first, removed");
    }

    /** libmemcached's own tools, given the socket's path as their server, store and read through it. */
    @Test
    void libmemcachedClientsUseTheSocket() throws Exception {
        Path file = Files.writeString(directory.resolve("greeting"), "hello over a socket");
        try (TestGateway gateway = TestGateway.start(sockets());
             BinaryClient onPort = new BinaryClient(gateway.port())) {
            String servers = "--servers=" + directory.resolve("memcached.sock");
            assertEquals("", run("memccp", servers, "--binary", file.toString()));
            assertEquals("hello over a socket", onPort.get("greeting").valueText());
            assertEquals("hello over a socket", run("memccat", servers, "--binary", "greeting").strip());
        }
    }

    /** Runs a command to its end; its output, or a failure naming its exit status. */
    private static String run(String... command) throws Exception {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(30, TimeUnit.SECONDS), command[0] + " did not finish");
        assertEquals(0, process.exitValue(), command[0] + ": " + output);
        return output;
    }

    @Test
    void socketModeSetsThePermissionsAndABadOneIsRefused() throws Exception {
        try (TestGateway gateway = TestGateway.start(sockets("socket_mode", "0770"))) {
            assertEquals("rwxrwx---", PosixFilePermissions.toString(
                    Files.getPosixFilePermissions(directory.resolve("counter.sock"))));
            assertEquals("rwxrwx---", PosixFilePermissions.toString(
                    Files.getPosixFilePermissions(directory.resolve("okuyama.sock"))));
        }
        try (TestGateway gateway = TestGateway.start(sockets("socket_mode", "666"))) {
            assertEquals("rw-rw-rw-", PosixFilePermissions.toString(
                    Files.getPosixFilePermissions(directory.resolve("memcached.sock"))));
        }
        for (String bad : new String[] {"0800", "rwx", "04700", "70", ""}) {
            Exception refused = assertThrows(Exception.class, () -> TestGateway.start(sockets("socket_mode", bad)));
            assertTrue(refused.getMessage().contains("socket_mode"), bad + ": " + refused.getMessage());
        }
    }

    @Test
    void aStaleSocketIsReplacedWhileALiveOneOrAnotherFileIsRefused() throws Exception {
        Path path = directory.resolve("memcached.sock");
        // A socket file whose server is gone: bound, then closed, which leaves the file.
        try (ServerSocketChannel gone = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            gone.bind(UnixDomainSocketAddress.of(path));
        }
        assertTrue(Files.exists(path));
        try (TestGateway gateway = TestGateway.start(sockets());
             BinaryClient client = new BinaryClient(path)) {
            assertEquals(0, client.call(BinaryClient.NOOP, new byte[0], new byte[0], new byte[0], 0).status());
        }
        try (ServerSocketChannel live = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            live.bind(UnixDomainSocketAddress.of(path));
            StartupException refused = assertThrows(StartupException.class, () -> TestGateway.start(sockets()));
            assertTrue(refused.getMessage().contains("a server listens on it"), refused.getMessage());
            assertTrue(Files.exists(path), "the live server's socket left alone");
        }
        Files.deleteIfExists(path);
        Files.writeString(path, "not a socket");
        StartupException refused = assertThrows(StartupException.class, () -> TestGateway.start(sockets()));
        assertTrue(refused.getMessage().contains("a file that is not a socket is there"), refused.getMessage());
        assertEquals("not a socket", Files.readString(path), "the file left alone");
    }

    @Test
    void theSocketsConnectionsCountAgainstTheConnectionLimit() throws Exception {
        try (TestGateway gateway = TestGateway.start(sockets("max_connections", "1"));
             BinaryClient onSocket = new BinaryClient(directory.resolve("memcached.sock"))) {
            assertEquals(0, onSocket.call(BinaryClient.NOOP, new byte[0], new byte[0], new byte[0], 0).status());
            try (BinaryClient onPort = new BinaryClient(gateway.port(), 2000)) {
                assertTrue(onPort.closedByServer(), "the one connection allowed is the socket's");
            }
            assertEquals(0, onSocket.call(BinaryClient.NOOP, new byte[0], new byte[0], new byte[0], 0).status(),
                    "the socket's connection still served");
        }
    }

    @Test
    void anIdleConnectionOnTheSocketIsClosed() throws Exception {
        try (TestGateway gateway = TestGateway.start(sockets("idle_timeout_s", "1"));
             BinaryClient onSocket = new BinaryClient(directory.resolve("memcached.sock"))) {
            long idleFrom = System.nanoTime(); // before the request: the server's idle time starts after its reply
            assertEquals(0, onSocket.call(BinaryClient.NOOP, new byte[0], new byte[0], new byte[0], 0).status());
            assertTrue(onSocket.closedByServer());
            assertTrue(System.nanoTime() - idleFrom > TimeUnit.MILLISECONDS.toNanos(900), "closed for being idle");
        }
    }

    @Test
    void badSocketSettingsStopTheStartWithTheirKey() throws Exception {
        String shared = directory.resolve("shared.sock").toString();
        String[][] cases = {
                {"memcached.socket", "relative.sock"},
                {"okuyama.socket", "/" + "s".repeat(UnixSockets.MAX_PATH)},
                // Short enough itself, but not where it is bound first: 91 bytes of directory and 19 more.
                {"okuyama.socket", "/" + "d".repeat(90) + "/a.sock"},
                {"memcached.socket", shared, "counter.socket", shared},
                {"socket_mode", "0800"}};
        for (String[] settings : cases) {
            Exception refused = assertThrows(Exception.class, () -> TestGateway.start(TestGateway.with(Map.of(),
                    settings)));
            String key = settings[settings.length - 2];
            assertTrue(refused.getMessage().startsWith(key + " = "), String.join(" ", settings) + ": "
                    + refused.getMessage());
        }
        assertEquals(List.of(), entries(), "nothing bound, nothing left behind");
    }
}
