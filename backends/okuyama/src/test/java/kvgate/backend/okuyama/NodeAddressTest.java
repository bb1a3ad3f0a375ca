package kvgate.backend.okuyama;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.junit.jupiter.api.Test;

class NodeAddressTest {
    @Test
    void listsParseAndBadEntriesAreNamed() {
        assertEquals(List.of(new NodeAddress("a", 8888), new NodeAddress("::1", 8889)),
                NodeAddress.parseList(" a:8888 , [::1]:8889,"));
        assertEquals(List.of(), NodeAddress.parseList(""));
        assertEquals("'a' is not host:port",
                assertThrows(IllegalArgumentException.class, () -> NodeAddress.parseList("a")).getMessage());
        assertEquals("'a:x' has no port number",
                assertThrows(IllegalArgumentException.class, () -> NodeAddress.parseList("a:x")).getMessage());
        assertEquals("'a:0': port 0 is not 1-65535",
                assertThrows(IllegalArgumentException.class, () -> NodeAddress.parseList("a:0")).getMessage());
    }

    @Test
    void dataNodesMayNameTheirReplicas() {
        assertEquals(List.of(List.of(new NodeAddress("a", 5553), new NodeAddress("a2", 6553)),
                        List.of(new NodeAddress("b", 5554))),
                NodeAddress.parseReplicated("a:5553|a2:6553, b:5554"));
        assertEquals(List.of(), NodeAddress.parseReplicated(""));
    }
}
