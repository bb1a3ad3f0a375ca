package kvgate.backend.memcached;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

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
        assertEquals("::1", server.host());
        assertEquals(11300, server.port());
        assertEquals(2, server.weight());
        assertEquals("[::1]:11300", server.toString());
    }

    @Test
    void refusesMalformedEntries() {
        for (String bad : new String[] {"", " , ", "h:0", "h:65536", "h:x", "h:1:0", "h:1:1:1", "[::1", "[::1]x",
                "h:1:1 a b", ":11211"}) {
            assertThrows(IllegalArgumentException.class, () -> ServerAddress.parseList(bad), bad);
        }
    }
}
