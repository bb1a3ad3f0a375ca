package kvgate.memcached.couchbase;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.couchbase.client.core.env.CertificateAuthenticator;
import com.couchbase.client.core.env.SeedNode;
import com.couchbase.client.core.error.CouchbaseException;
import com.couchbase.client.java.Cluster;
import com.couchbase.client.java.ClusterOptions;
import com.couchbase.client.java.Collection;
import com.couchbase.client.java.json.JsonObject;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLSocket;
import kvgate.testing.BinaryClient;
import kvgate.testing.Ports;
import kvgate.testing.TestCertificates;
import kvgate.testing.TestGateway;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Client certificates as logins ({@code memcached.cert_user}), as a Couchbase server maps them: a verified
 * certificate whose field names a user of the password file logs the connection in without SASL (binary, text, the
 * management port and a Couchbase SDK's certificate authenticator); one naming nobody closes the connection; a
 * client without a certificate logs in with SASL as before.
 */
class CertificateLoginTest {
    private static final int SET = 0x01;
    private static final int SASL_AUTH = 0x21;
    private static final int AUTH_ERROR = 0x20;
    private static final int NOT_SUPPORTED = 0x83;

    @TempDir
    static Path directory;
    private static TestCertificates certificates;

    @BeforeAll
    static void make() throws Exception {
        certificates = TestCertificates.make(directory);
        certificates.client("alice", "/CN=app server 7",
                "URI:urn:example:other,URI:couchbase://alice@gateway/default,email:ops@example.com");
        certificates.client("mallory", "/CN=mallory", "URI:couchbase://mallory@gateway/default");
    }

    /** A gateway whose TLS memcached port logs in the user a certificate's couchbase:// URI names. */
    private static Map<String, String> settings(String clientAuth, String... more) throws IOException {
        return TestGateway.with(TestGateway.with(TestGateway.passwordFile(directory, "alice:secret\nbob:builder\n"),
                        "memcached.tls", "true", "tls.cert", certificates.file("server.pem").toString(),
                        "tls.key", certificates.file("server.key").toString(),
                        "tls.client_ca", certificates.file("ca.pem").toString(), "tls.client_auth", clientAuth,
                        "memcached.cert_user", "san.uri", "memcached.cert_user_prefix", "couchbase://",
                        "memcached.cert_user_delimiters", "@/"), more);
    }

    private static BinaryClient.Response set(BinaryClient client, String key) throws IOException {
        return client.call(SET, BinaryClient.storeExtras(0, 0), BinaryClient.bytes(key), BinaryClient.bytes("v"), 0);
    }

    @Test
    void aCertificateNamingAUserLogsInWithoutSaslAndKeepsThatUser() throws Exception {
        try (TestGateway gateway = TestGateway.start(settings("require"));
             BinaryClient alice = BinaryClient.over(certificates.connect(gateway.port(), "alice"))) {
            assertEquals(0, set(alice, "by-certificate").status());
            // SASL cannot change the user a certificate gave, with a right password or a wrong one.
            assertEquals(NOT_SUPPORTED, alice.authenticate("bob", "builder").status());
            assertEquals(NOT_SUPPORTED, alice.call(SASL_AUTH, new byte[0], BinaryClient.bytes("PLAIN"),
                    BinaryClient.bytes("\0bob\0wrong"), 0).status());
            assertEquals("v", alice.get("by-certificate").valueText());
            assertEquals(0, gateway.gateway().metrics().refusals("memcached", "cert_user").count());
        }
    }

    @Test
    void aTextClientWithSuchACertificateNeedsNoAuthenticationSet() throws Exception {
        try (TestGateway gateway = TestGateway.start(settings("require"));
             SSLSocket alice = certificates.connect(gateway.port(), "alice")) {
            alice.getOutputStream().write("set t 0 0 2\r\nok\r\nget t\r\n".getBytes(StandardCharsets.US_ASCII));
            alice.getOutputStream().flush();
            assertEquals("STORED\r\nVALUE t 0 2\r\nok\r\nEND\r\n", new String(alice.getInputStream().readNBytes(30),
                    StandardCharsets.US_ASCII));
        }
    }

    @Test
    void aCertificateNamingNoUserOfThePasswordFileIsClosedAndCounted() throws Exception {
        try (TestGateway gateway = TestGateway.start(settings("require"))) {
            // "client" has no couchbase:// URI; mallory's names a user the password file lacks.
            for (String client : new String[] {"client", "mallory"}) {
                try (BinaryClient refused = BinaryClient.over(certificates.connect(gateway.port(), client))) {
                    refused.send(BinaryClient.frame(SET, BinaryClient.storeExtras(0, 0), BinaryClient.bytes("k"),
                            BinaryClient.bytes("v"), 0, 1));
                    assertTrue(refused.closedByServer(), client);
                }
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (gateway.gateway().metrics().refusals("memcached", "cert_user").count() < 2
                    && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertEquals(2, gateway.gateway().metrics().refusals("memcached", "cert_user").count());
            try (BinaryClient alice = BinaryClient.over(certificates.connect(gateway.port(), "alice"))) {
                assertEquals(0, set(alice, "k").status());
            }
        }
    }

    @Test
    void withOptionalCertificatesAClientWithoutOneLogsInWithSasl() throws Exception {
        try (TestGateway gateway = TestGateway.start(settings("optional"));
             BinaryClient anonymous = BinaryClient.over(certificates.connect(gateway.port(), null))) {
            assertEquals(AUTH_ERROR, set(anonymous, "k").status());
            assertEquals(0, anonymous.authenticate("bob", "builder").status());
            assertEquals(0, set(anonymous, "k").status());
        }
    }

    @Test
    void aMappingWithoutMutualTlsOrUsersStopsTheStart() throws Exception {
        for (String[] missing : new String[][] {{"tls.client_auth", "none"}, {"memcached.tls", "false"},
                {"memcached.sasl_pwdb", ""}}) {
            Exception refused = assertThrows(Exception.class, () -> TestGateway.start(settings("require",
                    missing)).close(), missing[0]);
            assertTrue(String.valueOf(refused.getMessage()).contains("memcached.cert_user = san.uri"),
                    String.valueOf(refused));
        }
    }

    /** A Couchbase SDK over TLS, trusting the test CA, that logs in with {@code client}'s certificate. */
    private static Cluster sdk(int port, int mgmtPort, String client, int kvSeconds) {
        return Cluster.connect(Set.of(SeedNode.create("127.0.0.1", Optional.of(port), Optional.of(mgmtPort))),
                ClusterOptions.clusterOptions(CertificateAuthenticator.fromKeyStore(certificates.file(client + ".p12"),
                                TestCertificates.PASSWORD, Optional.of("PKCS12")))
                        .environment(env -> env.securityConfig(security -> security.enableTls(true)
                                        .trustCertificate(certificates.file("ca.pem")))
                                .timeoutConfig(timeouts -> timeouts.kvTimeout(Duration.ofSeconds(kvSeconds)))));
    }

    @Test
    void aCouchbaseSdkLogsInWithItsCertificate() throws Exception {
        int mgmtPort = Ports.free();
        try (TestGateway gateway = TestGateway.start(settings("require", "memcached.mgmt_enable", "true",
                "memcached.mgmt_port", Integer.toString(mgmtPort)))) {
            Cluster cluster = sdk(gateway.port(), mgmtPort, "alice", 5);
            try {
                // waitUntilReady asks the management port, which the certificate logs in too.
                cluster.bucket("default").waitUntilReady(Duration.ofSeconds(20));
                Collection documents = cluster.bucket("default").defaultCollection();
                JsonObject ada = JsonObject.create().put("name", "Ada");
                documents.upsert("user::ada", ada);
                assertEquals(ada, documents.get("user::ada").contentAsObject());
            } finally {
                cluster.disconnect();
            }
            // Mallory's certificate is trusted but names a user the password file lacks: the SDK gets nothing.
            Cluster refused = sdk(gateway.port(), mgmtPort, "mallory", 2);
            try {
                Collection documents = refused.bucket("default").defaultCollection();
                assertThrows(CouchbaseException.class, () -> documents.get("user::ada"));
            } finally {
                refused.disconnect();
            }
            assertTrue(gateway.gateway().metrics().refusals("memcached", "cert_user").count() > 0);
        }
    }
}
