package kvgate.route.generic;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Map;
import kvgate.spi.Item;
import kvgate.spi.Namespace;
import kvgate.spi.Operation;
import kvgate.spi.Status;
import kvgate.spi.StoreMode;
import kvgate.testing.MemcachedServers;
import kvgate.testing.TestGateway;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The generic layer suite on two real memcached servers, which have no scans, tags or index: all of it is the
 * dispatcher's generic layer, shared by two gateways on the same servers.
 */
@Tag("servers")
class GenericLayerOnMemcachedTest extends GenericLayerSuite {
    private static MemcachedServers servers;

    @BeforeAll
    static void start() throws Exception {
        servers = MemcachedServers.start(2);
        gateway = TestGateway.start(servers, Map.of());
        second = TestGateway.start(servers.backendSettings()); // the first gateway owns the servers
    }

    @Test
    void theDefaultNamespaceIsNotListedUnlessConfigured() throws Exception {
        assertEquals(Status.UNSUPPORTED, run(new Operation.Scan(Namespace.DEFAULT, 10)).status());
        try (TestGateway all = TestGateway.start(Map.of("backend", "memcached",
                "memcached.servers", servers.serverList(), "scan.directory", "all"))) {
            assertEquals(Status.OK, run(all, new Operation.Store(Namespace.DEFAULT, bytes("listed"), StoreMode.SET,
                    bytes("v"), 0, Item.NEVER, 0)).status());
            assertEquals(Status.OK, run(all, new Operation.Scan(Namespace.DEFAULT, 10)).status());
        }
    }
}
