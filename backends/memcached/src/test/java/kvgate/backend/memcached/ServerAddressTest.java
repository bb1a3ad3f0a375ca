package kvgate.backend.memcached;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class ServerAddressTest {

    @Test
    void parsesHostPortWeightAndName() {
        assertEquals(List.of(new ServerAddress("10.0.0.1", 11300, 1, "10.0.0.1:11300"),
                        new ServerAddress("cache", 11211, 5, "cache"),
                        new ServerAddress("10.0.0.3", 11211, 2, "cache-c")),
                ServerAddress.parseList("10.0.0.1:11300, cache::5 ,10.0.0.3:11211:2 cache-c".replace("::", ":11211:")));
    }

    @Test
    void ketamaNameLeavesOutTheDefaultPortAsTwemproxyAndLibmemcachedDo() {
        assertEquals("10.0.0.1", ServerAddress.parseList("10.0.0.1").get(0).name());
        assertEquals("10.0.0.1", ServerAddress.parseList("10.0.0.1:11211").get(0).name());
        assertEquals("10.0.0.1:11212", ServerAddress.parseList("10.0.0.1:11212").get(0).name());
    }

    @Test
    void ipv6HostsAreBracketed() {
        ServerAddress server = ServerAddress.parseList("[::1]:11300:2").get(0);
        assertEquals(new ServerAddress.Tcp("::1", 11300), server.endpoint());
        assertEquals(2, server.weight());
        assertEquals("[::1]:11300", server.toString());
    }

    @Test
    void aPathIsAUnixSocketNamedByItsPathAndAColonAsTwemproxyNamesOne() {
        assertEquals(List.of(new ServerAddress(new ServerAddress.UnixSocket("/run/memcached/a.sock"), 1,
                                "/run/memcached/a.sock:"),
                        new ServerAddress(new ServerAddress.UnixSocket("/run/memcached/b.sock"), 3, "cache-b"),
                        new ServerAddress("10.0.0.1", 11211, 1, "10.0.0.1")),
                ServerAddress.parseList("/run/memcached/a.sock, /run/memcached/b.sock:3 cache-b, 10.0.0.1"));
        assertEquals("/run/memcached/a.sock", ServerAddress.parse("/run/memcached/a.sock").toString());
    }

    @Test
    void aPathHoldingAColonIsWrittenWithItsWeight() {
        assertEquals(new ServerAddress.UnixSocket("/run/a:b.sock"),
                ServerAddress.parse("/run/a:b.sock:2").endpoint());
        assertEquals(2, ServerAddress.parse("/run/a:b.sock:2").weight());
        assertThrows(IllegalArgumentException.class, () -> ServerAddress.parse("/run/a:b.sock"));
    }

    @Test
    void aSocketPathLongerThanTheKernelTakesIsRefusedWhenRead() {
        String longest = "/" + "s".repeat(ServerAddress.MAX_SOCKET_PATH - 1);
        assertEquals(new ServerAddress.UnixSocket(longest), ServerAddress.parse(longest).endpoint());
        IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                () -> ServerAddress.parse(longest + "s"));
        assertTrue(refused.getMessage().contains("longer than 107 bytes"), refused.getMessage());
    }

    @Test
    void refusesMalformedEntries() {
        for (String bad : new String[] {"", " , ", "h:0", "h:65536", "h:x", "h:1:0", "h:1:1:1", "[::1", "[::1]x",
                "h:1:1 a b", ":11211", "/run/a.sock:0", "/run/a.sock:x", "/run/a.sock:1 a b", "/:2:", "h:+11211",
                "h:11211:+2", "/run/a.sock:+2", "run/a.sock", "run/a.sock:1"}) {
            assertThrows(IllegalArgumentException.class, () -> ServerAddress.parseList(bad), bad);
        }
    }
}
