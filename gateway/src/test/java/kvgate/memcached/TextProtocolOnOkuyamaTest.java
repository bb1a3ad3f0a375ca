package kvgate.memcached;

import kvgate.testing.OkuyamaCluster;
import kvgate.testing.TestGateway;
import org.junit.jupiter.api.BeforeAll;

/**
 * The memcached text protocol suite on the okuyama backend, in front of an okuyama-protocol server. The default
 * collection is not the cluster's own namespace here, so its items keep their flags and expiry (see the okuyama
 * backend's StoredValues); the gateway still learns no expiry from okuyama's reads in general, so meta's {@code t}
 * is refused as on memcached.
 */
class TextProtocolOnOkuyamaTest extends TextProtocolSuite {
    @BeforeAll
    static void start() throws Exception {
        gateway = TestGateway.start(OkuyamaCluster.start(), TestGateway.with(SETTINGS,
                "okuyama.cluster_namespace", "okuyama-cluster"));
        readsTellExpiry = false;
    }
}
