package kvgate.memcached.couchbase;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.couchbase.client.core.env.SeedNode;
import com.couchbase.client.java.Cluster;
import com.couchbase.client.java.ClusterOptions;
import com.couchbase.client.java.Collection;
import com.couchbase.client.java.json.JsonObject;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import kvgate.testing.Ports;
import kvgate.testing.TestCertificates;
import kvgate.testing.TestGateway;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A Couchbase Java SDK over TLS ({@code couchbases://}), trusting a test CA: the cluster map names the TLS ports
 * ({@code kvSSL}, {@code mgmtSSL}) the SDK looks for, its waitUntilReady asks the management port over TLS, and its
 * documents go over the memcached port's TLS.
 */
class CouchbaseSdkOverTlsTest {
    @TempDir
    Path directory;

    @Test
    void theSdkBootstrapsAndWorksOverTls() throws Exception {
        TestCertificates certificates = TestCertificates.make(directory);
        int mgmtPort = Ports.free();
        Map<String, String> settings = TestGateway.with(TestGateway.passwordFile(directory, "Administrator:password\n"),
                "memcached.tls", "true", "tls.cert", certificates.file("server.pem").toString(),
                "tls.key", certificates.file("server.key").toString(), "memcached.mgmt_enable", "true",
                "memcached.mgmt_port", Integer.toString(mgmtPort));
        try (TestGateway gateway = TestGateway.start(settings)) {
            Cluster cluster = Cluster.connect(Set.of(SeedNode.create("127.0.0.1", Optional.of(gateway.port()),
                    Optional.of(mgmtPort))), ClusterOptions.clusterOptions("Administrator", "password")
                    .environment(env -> env.securityConfig(security -> security.enableTls(true)
                                    .trustCertificate(certificates.file("ca.pem")))
                            .timeoutConfig(timeouts -> timeouts.kvTimeout(Duration.ofSeconds(5)))));
            try {
                cluster.bucket("default").waitUntilReady(Duration.ofSeconds(20));
                Collection documents = cluster.bucket("default").defaultCollection();
                JsonObject grace = JsonObject.create().put("name", "Grace").put("born", 1906);
                documents.upsert("user::grace", grace);
                assertEquals(grace, documents.get("user::grace").contentAsObject());
            } finally {
                cluster.disconnect();
            }
        }
    }
}
