package kvgate.memcached.couchbase;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.cert.X509Certificate;
import kvgate.testing.TestCertificates;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Which user a certificate names, on certificates openssl made: each field, prefixes and delimiters. */
class CertificateUsersTest {
    @TempDir
    static Path directory;
    private static X509Certificate app;
    private static X509Certificate plain;
    private static SaslUsers users;

    @BeforeAll
    static void make() throws Exception {
        TestCertificates certificates = TestCertificates.make(directory);
        certificates.client("app", "/O=Example/CN=svc-alice", "URI:urn:example:other,"
                + "URI:couchbase://alice@gateway/default,URI:couchbase://bob@gateway,email:carol@example.com,"
                + "DNS:dave.internal.example");
        app = certificates.certificate("app.pem");
        plain = certificates.certificate("client.pem"); // CN=test client, no alternative names
        Path pwdb = directory.resolve("pwdb");
        Files.writeString(pwdb, "alice:a\ncarol:c\n");
        Files.setPosixFilePermissions(pwdb, PosixFilePermissions.fromString("rw-------"));
        users = SaslUsers.read("memcached.sasl_pwdb", pwdb);
    }

    @Test
    void eachFieldIsRead() {
        assertEquals("svc-alice", new CertificateUsers("subject.cn", "", "").user(app));
        assertEquals("alice", new CertificateUsers("subject.cn", "svc-", "").user(app));
        assertEquals("carol", new CertificateUsers("san.email", "", "@").user(app));
        assertEquals("dave", new CertificateUsers("san.dnsname", "", ".").user(app));
        assertEquals("test client", new CertificateUsers("subject.cn", "", "").user(plain));
    }

    @Test
    void theFirstValueWithThePrefixIsTakenAndCutAtADelimiter() {
        assertEquals("alice", new CertificateUsers("san.uri", "couchbase://", "@/").user(app));
        // Without a prefix the first URI is taken whole up to a delimiter.
        assertEquals("urn:example:other", new CertificateUsers("san.uri", "", "@").user(app));
        assertEquals("urn", new CertificateUsers("san.uri", "", ":").user(app));
        assertNull(new CertificateUsers("san.uri", "ldap://", "").user(app));
        assertNull(new CertificateUsers("san.uri", "", "").user(plain));
    }

    @Test
    void aLoginNeedsAUserOfThePasswordFile() {
        assertInstanceOf(CertificateUsers.NoCertificate.class,
                new CertificateUsers("san.uri", "couchbase://", "@").login(null, users));
        assertEquals(new CertificateUsers.User("alice"),
                new CertificateUsers("san.uri", "couchbase://", "@").login(app, users));
        assertEquals(new CertificateUsers.User("carol"), new CertificateUsers("san.email", "", "@").login(app, users));
        CertificateUsers.Login nobody = new CertificateUsers("subject.cn", "", "").login(app, users);
        assertTrue(((CertificateUsers.Refused) nobody).why().contains("'svc-alice', who is not in the password file"),
                nobody.toString());
        CertificateUsers.Login none = new CertificateUsers("san.uri", "couchbase://", "@").login(plain, users);
        assertTrue(((CertificateUsers.Refused) none).why().contains("has no san.uri starting with 'couchbase://'"),
                none.toString());
    }

    @Test
    void anUnknownFieldIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> new CertificateUsers("subject.o", "", ""));
    }
}
