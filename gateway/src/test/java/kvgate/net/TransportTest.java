package kvgate.net;

import static kvgate.testing.OkuyamaClient.b64;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.channel.epoll.Epoll;
import io.netty.channel.uring.IoUring;
import java.io.ByteArrayOutputStream;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import kvgate.config.ConfigurationException;
import kvgate.testing.BinaryClient;
import kvgate.testing.CounterClient;
import kvgate.testing.MemcachedServers;
import kvgate.testing.MpdbClient;
import kvgate.testing.OkuyamaClient;
import kvgate.testing.TestGateway;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code io_transport}: each transport the platform has serves every listener, and the memcached backend's
 * connections run on it too, over TCP and Unix domain sockets; one it lacks is refused at start with the
 * platform's reason.
 */
@Tag("servers")
class TransportTest {
    @Test
    void autoIsEpollWhereThePlatformHasItElseNio() throws Exception {
        assertEquals(Epoll.isAvailable() ? Transport.EPOLL : Transport.NIO, Transport.of("auto"));
        assertEquals(Transport.NIO, Transport.of("nio"));
        assertThrows(ConfigurationException.class, () -> Transport.of("kqueue"));
    }

    /** Whether the platform has the transport a value names, as Netty finds it. */
    private static boolean available(String transport) {
        return switch (transport) {
            case "epoll" -> Epoll.isAvailable();
            case "io_uring" -> IoUring.isAvailable();
            default -> true;
        };
    }

    /**
     * Whether the platform has the transport; when it has not, first checks that a gateway asked for it is refused
     * at start with the platform's reason, which is then what a test of that transport can show here.
     */
    static boolean availableElseRefused(String transport) {
        if (available(transport)) {
            return true;
        }
        ConfigurationException refused = assertThrows(ConfigurationException.class,
                () -> TestGateway.start(Map.of("io_transport", transport)));
        assertTrue(refused.getMessage().startsWith("io_transport = " + transport + ": not available here"),
                refused.getMessage());
        return false;
    }

    @ParameterizedTest
    @ValueSource(strings = {"epoll", "io_uring", "nio"})
    void eachTransportServesEveryProtocolAndTheMemcachedBackendOrIsRefusedWithItsReason(String transport)
            throws Exception {
        if (availableElseRefused(transport)) {
            servesEveryProtocol(transport);
        }
    }

    /**
     * The memcached backend reaches a memcached on a Unix domain socket (memcached -s, which then listens on no
     * port) with the transport's own socket type: the same pipelined burst and large value as over TCP.
     */
    @ParameterizedTest
    @ValueSource(strings = {"epoll", "io_uring", "nio"})
    void eachTransportReachesMemcachedOnAUnixSocketOrIsRefusedWithItsReason(String transport,
                                                                              @TempDir Path directory)
            throws Exception {
        if (!availableElseRefused(transport)) {
            return;
        }
        try (TestGateway gateway = TestGateway.start(MemcachedServers.startOnUnixSockets(directory, 1),
                Map.of("io_transport", transport));
             BinaryClient client = new BinaryClient(gateway.port())) {
            burstAndLargeValue(client);
        }
    }

    /** A pipelined burst through the gateway to memcached and back, answered in order; a value of many reads. */
    private static void burstAndLargeValue(BinaryClient client) throws Exception {
        ByteArrayOutputStream burst = new ByteArrayOutputStream();
        for (int i = 0; i < 64; i++) {
            burst.write(BinaryClient.frame(BinaryClient.SET, BinaryClient.storeExtras(i, 0),
                    BinaryClient.bytes("k" + i), BinaryClient.bytes("v" + i), 0, i));
        }
        client.send(burst.toByteArray());
        for (int i = 0; i < 64; i++) {
            BinaryClient.Response stored = client.read();
            assertEquals(0, stored.status());
            assertEquals(i, stored.opaque());
        }
        assertEquals("v63", client.get("k63").valueText());
        assertEquals(63, client.get("k63").flags());
        byte[] large = new byte[300_000];
        Arrays.fill(large, (byte) 'x');
        assertEquals(0, client.call(BinaryClient.SET, BinaryClient.storeExtras(0, 0), BinaryClient.bytes("large"),
                large, 0).status());
        assertArrayEquals(large, client.get("large").value());
    }

    private static void servesEveryProtocol(String transport) throws Exception {
        try (TestGateway gateway = TestGateway.start(MemcachedServers.start(1),
                Map.of("io_transport", transport))) {
            assertEquals(Transport.of(transport), gateway.gateway().transport());
            try (BinaryClient client = new BinaryClient(gateway.port())) {
                burstAndLargeValue(client);
            }
            try (OkuyamaClient okuyama = new OkuyamaClient(gateway.okuyamaPort())) {
                assertEquals("1,true,OK", okuyama.call("1," + b64("oku") + ",(B),0," + b64("value")));
                assertEquals("2,true," + b64("value"), okuyama.call("2," + b64("oku")));
            }
            try (MpdbClient mpdb = new MpdbClient(gateway.mpdbPort())) {
                assertEquals("", mpdb.call(MpdbClient.insert(1, Map.of("users.one", "a datagram"))).error());
                assertEquals("a datagram", mpdb.call(MpdbClient.get(2, "users.one")).result().get("users.one")
                        .value());
            }
            try (CounterClient holder = new CounterClient(gateway.counterPort());
                 CounterClient other = new CounterClient(gateway.counterPort())) {
                assertEquals(0, holder.acquire("held", 3, 5).status());
                assertEquals(3, other.get("held").u32(0));
                holder.close(); // the close, as this transport sees it, gives the holding back
                long deadline = System.nanoTime() + 10_000_000_000L;
                for (CounterClient.Response held = other.get("held"); held.status() == 0 && held.u32(0) == 3;
                     held = other.get("held")) {
                    assertTrue(System.nanoTime() < deadline, "the closed connection's holding given back");
                    Thread.sleep(10);
                }
                CounterClient.Response after = other.get("held");
                assertTrue(after.status() == 0x01 || after.u32(0) == 0, "given back: " + after);
            }
        }
    }
}
