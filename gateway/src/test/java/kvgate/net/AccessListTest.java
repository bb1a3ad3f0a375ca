package kvgate.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.channel.unix.DomainSocketAddress;
import java.net.InetSocketAddress;
import java.util.List;
import kvgate.config.ConfigurationException;
import org.junit.jupiter.api.Test;

/** Access lists as an operator writes them: IPv4 and IPv6 blocks and addresses, and what is refused. */
class AccessListTest {
    private static InetSocketAddress at(String address) {
        return new InetSocketAddress(address, 4000);
    }

    @Test
    void blocksAndBareAddressesOfBothFamilies() throws Exception {
        AccessList list = AccessList.parse("memcached.allow", " 10.0.0.0/8, 192.168.1.7 ,2001:db8::/32, ::1 ");
        assertTrue(list.allows(at("10.200.3.4")));
        assertTrue(list.allows(at("192.168.1.7")));
        assertFalse(list.allows(at("192.168.1.8")));
        assertFalse(list.allows(at("11.0.0.1")));
        assertTrue(list.allows(at("2001:db8:1::5")));
        assertTrue(list.allows(at("::1")));
        assertFalse(list.allows(at("2001:db9::1")));
        assertFalse(list.allows(at("127.0.0.1")));
        assertTrue(list.allows(new DomainSocketAddress("/tmp/x.sock")), "a Unix socket's clients are this host's");
    }

    @Test
    void emptyAllowsEveryAddress() throws Exception {
        AccessList any = AccessList.parse("admin.allow", " , ");
        assertTrue(any.isAny());
        assertTrue(any.allows(at("203.0.113.9")));
        assertEquals("any address", any.toString());
    }

    @Test
    void whatIsNoAddressOrBlockIsRefusedNamingTheKeyAndTheEntry() {
        for (String bad : List.of("example.com", "10.0.0.0/33", "::1/129", "10.0.0/8", "10.0.0.0/x", "999.1.1.1",
                "1.2.3.4/-1")) {
            String message = assertThrows(ConfigurationException.class,
                    () -> AccessList.parse("okuyama.allow", "127.0.0.1, " + bad)).getMessage();
            assertTrue(message.startsWith("okuyama.allow: '" + bad + "'"), message);
        }
    }
}
