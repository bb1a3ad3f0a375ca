package kvgate.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.Map;
import kvgate.testing.BinaryClient;
import kvgate.testing.MpdbClient;
import kvgate.testing.TestGateway;
import org.junit.jupiter.api.Test;

/**
 * Access lists over real sockets, IPv4 and IPv6 loopback: a connection from outside is closed before anything is
 * read, a datagram from outside dropped unanswered, and both are counted; inside, clients are served.
 */
class AccessListsTest {
    /** Connects from {@code local} and sends a version request: whether the server answered before closing. */
    private static boolean served(String local, String server, int port) throws Exception {
        try (Socket socket = new Socket()) {
            socket.bind(new InetSocketAddress(local, 0));
            socket.connect(new InetSocketAddress(server, port), 5000);
            socket.setSoTimeout(5000);
            socket.getOutputStream().write("version\r\n".getBytes());
            InputStream in = socket.getInputStream();
            try {
                return in.read() >= 0;
            } catch (SocketTimeoutException | java.net.SocketException closed) {
                return false;
            }
        }
    }

    @Test
    void onlyTheAllowedIpv4NetworksConnect() throws Exception {
        try (TestGateway gateway = TestGateway.start(Map.of("memcached.allow", "127.0.0.2/32, 10.0.0.0/8",
                "okuyama.allow", "127.0.0.0/8"))) {
            assertTrue(served("127.0.0.2", "127.0.0.1", gateway.port()));
            assertTrue(!served("127.0.0.1", "127.0.0.1", gateway.port()), "127.0.0.1 is outside the list");
            assertTrue(!served("127.0.0.3", "127.0.0.1", gateway.port()));
            assertEquals(2, gateway.gateway().metrics().refusals("memcached", "access_list").count());
            assertTrue(served("127.0.0.3", "127.0.0.1", gateway.okuyamaPort()), "each listener has its own list");
            assertEquals(0, gateway.gateway().metrics().refusals("okuyama", "access_list").count());
        }
    }

    @Test
    void ipv6ClientsAreCheckedByTheirOwnBlocks() throws Exception {
        try (TestGateway gateway = TestGateway.start(Map.of("memcached.bind", "::1", "memcached.allow", "::1/128"))) {
            assertTrue(served("::1", "::1", gateway.port()));
        }
        try (TestGateway gateway = TestGateway.start(Map.of("memcached.bind", "::1",
                "memcached.allow", "127.0.0.0/8, 2001:db8::/32"))) {
            assertTrue(!served("::1", "::1", gateway.port()));
            assertEquals(1, gateway.gateway().metrics().refusals("memcached", "access_list").count());
        }
    }

    @Test
    void datagramsFromOutsideAreDroppedUnanswered() throws Exception {
        try (TestGateway gateway = TestGateway.start(Map.of("mpdb.allow", "127.0.0.2"));
             MpdbClient outside = new MpdbClient(InetAddress.getByName("127.0.0.1"),
                     InetAddress.getByName("127.0.0.1"), gateway.mpdbPort());
             MpdbClient inside = new MpdbClient(InetAddress.getByName("127.0.0.2"),
                     InetAddress.getByName("127.0.0.1"), gateway.mpdbPort())) {
            outside.send(MpdbClient.get(1, "k"));
            assertNull(outside.receive(500), "no answer to a source outside the list");
            assertNotNull(inside.call(MpdbClient.get(1, "k")));
            assertEquals(1, gateway.gateway().metrics().datagramsDropped("mpdb", "access_list"));
        }
    }

    @Test
    void aBadListStopsTheStartNamingTheKey() {
        Exception refused = org.junit.jupiter.api.Assertions.assertThrows(Exception.class,
                () -> TestGateway.start(Map.of("counter.allow", "localhost")));
        assertTrue(refused.getMessage().contains("counter.allow: 'localhost'"), refused.getMessage());
    }

    @Test
    void binaryClientsInsideAreServedAsBefore() throws Exception {
        try (TestGateway gateway = TestGateway.start(Map.of("memcached.allow", "127.0.0.1"));
             BinaryClient client = new BinaryClient(gateway.port())) {
            assertEquals(0, client.set("k", "v", 0, 0).status());
            assertEquals("v", client.get("k").valueText());
        }
    }
}
