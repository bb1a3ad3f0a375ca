package kvgate.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class PortsTest {
    @Test
    void portsAreHandedOutOnceEachBelowTheRangeOutgoingConnectionsTakeTheirsFrom() throws Exception {
        int outgoingFrom = Integer.parseInt(Files.readString(Path.of("/proc/sys/net/ipv4/ip_local_port_range"))
                .trim().split("\\s+")[0]);
        // Where that range leaves no room below it (it starts under 12000), the ports go up to 40000 instead.
        int below = outgoingFrom < 12_000 ? 40_000 : outgoingFrom;
        Set<Integer> seen = new HashSet<>();
        for (int i = 0; i < 200; i++) {
            int port = Ports.free();
            assertTrue(port >= 10_000 && port < below, port + " against outgoing connections' range from "
                    + outgoingFrom);
            assertTrue(seen.add(port), port + " handed out twice");
        }
        int port = Ports.free();
        try (ServerSocket server = new ServerSocket()) {
            server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
            assertEquals(port, server.getLocalPort());
        }
    }
}
