package kvgate.memcached;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import kvgate.memcached.binary.BinaryStatus;
import kvgate.testing.BinaryClient;
import kvgate.testing.MemcachedServers;
import kvgate.testing.TestCertificates;
import kvgate.testing.TestGateway;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The memcached backend over TLS to real memcached servers started with {@code -Z} and a test CA: the server's
 * certificate checked (an untrusted one refused), and a client certificate presented to a server that requires one.
 */
@Tag("servers")
class MemcachedServersOverTlsTest {
    @TempDir
    static Path directory;
    private static TestCertificates certificates;

    @BeforeAll
    static void make() throws Exception {
        certificates = TestCertificates.make(directory);
    }

    /** memcached -Z with the test server certificate, and {@code more} of its -o options. */
    private static MemcachedServers tlsServer(String more) throws Exception {
        return MemcachedServers.startWith(1, "-Z", "-o", "ssl_chain_cert=" + certificates.file("server.pem")
                + ",ssl_key=" + certificates.file("server.key") + more);
    }

    private static Map<String, String> gatewayOn(MemcachedServers servers, String... more) {
        Map<String, String> settings = new HashMap<>(servers.backendSettings());
        settings.put("memcached.server_tls", "true");
        settings.put("memcached.timeout_ms", "2000");
        for (int i = 0; i < more.length; i += 2) {
            settings.put(more[i], more[i + 1]);
        }
        return settings;
    }

    @Test
    void itemsGoOverTlsToAServerWhoseCertificateChainsToTheGivenCa() throws Exception {
        try (MemcachedServers servers = tlsServer("");
             TestGateway gateway = TestGateway.start(servers, gatewayOn(servers,
                     "memcached.server_ca", certificates.file("ca.pem").toString()));
             BinaryClient client = new BinaryClient(gateway.port())) {
            assertEquals(0, client.set("k", "over tls", 5, 0).status());
            BinaryClient.Response read = client.get("k");
            assertEquals("over tls", read.valueText());
            assertEquals(5, read.flags());
        }
    }

    @Test
    void aTrustedCertificateThatDoesNotNameTheServerIsRefusedUnlessHostChecksAreOff() throws Exception {
        // A certificate the CA signed for a client: it names no host or address at all.
        String elsewhere = "ssl_chain_cert=" + certificates.file("client.pem") + ",ssl_key="
                + certificates.file("client.key");
        try (MemcachedServers servers = MemcachedServers.startWith(1, "-Z", "-o", elsewhere)) {
            try (TestGateway gateway = TestGateway.start(gatewayOn(servers, // not the servers' owner
                    "memcached.server_ca", certificates.file("ca.pem").toString()));
                 BinaryClient client = new BinaryClient(gateway.port())) {
                assertEquals(BinaryStatus.TEMPORARY_FAILURE.code(), client.get("k").status(), "name checked");
            }
            try (TestGateway gateway = TestGateway.start(gatewayOn(servers, // not the servers' owner
                    "memcached.server_ca", certificates.file("ca.pem").toString(),
                    "memcached.server_verify_host", "false"));
                 BinaryClient client = new BinaryClient(gateway.port())) {
                assertEquals(0, client.set("k", "v", 0, 0).status(), "the chain alone checked");
            }
        }
    }

    @Test
    void aServerCertificateNobodyTrustsIsRefused() throws Exception {
        try (MemcachedServers servers = tlsServer("");
             TestGateway gateway = TestGateway.start(servers, gatewayOn(servers)); // the JVM's CAs only
             BinaryClient client = new BinaryClient(gateway.port())) {
            int status = client.set("k", "v", 0, 0).status();
            assertEquals(BinaryStatus.TEMPORARY_FAILURE.code(), status, "nothing was sent to an untrusted server");
        }
    }

    @Test
    void aClientCertificateIsPresentedToAServerThatRequiresOne() throws Exception {
        String requiring = ",ssl_verify_mode=2,ssl_ca_cert=" + certificates.file("ca.pem");
        try (MemcachedServers servers = tlsServer(requiring)) {
            try (TestGateway gateway = TestGateway.start(servers, gatewayOn(servers,
                    "memcached.server_ca", certificates.file("ca.pem").toString(),
                    "memcached.server_cert", certificates.file("client.pem").toString(),
                    "memcached.server_key", certificates.file("client.key").toString()));
                 BinaryClient client = new BinaryClient(gateway.port())) {
                assertEquals(0, client.set("k", "v", 0, 0).status());
                assertEquals("v", client.get("k").valueText());
            }
        }
        try (MemcachedServers servers = tlsServer(requiring);
             TestGateway gateway = TestGateway.start(servers, gatewayOn(servers,
                     "memcached.server_ca", certificates.file("ca.pem").toString()));
             BinaryClient client = new BinaryClient(gateway.port())) {
            // TLS 1.3 ends the client's side of the handshake before the server judges its certificate: the server's
            // refusal is the connection's end, which a read reports as a temporary failure.
            int status = client.get("k").status();
            assertTrue(status == BinaryStatus.TEMPORARY_FAILURE.code(), "without a client certificate: " + status);
        }
    }
}
