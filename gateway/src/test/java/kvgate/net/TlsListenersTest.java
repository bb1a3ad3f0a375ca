package kvgate.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.cert.X509Certificate;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLSocket;
import kvgate.config.ConfigurationException;
import kvgate.testing.ClientConnection;
import kvgate.testing.TestCertificates;
import kvgate.testing.TestGateway;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * TLS on the listeners, with real clients: Java's own TLS, {@code openssl s_client}, Python's pymemcache over an
 * {@code ssl} context; mutual TLS accepted and refused; a plain-text client on a TLS port refused, counted and
 * logged; a certificate read again by a reload while connections stay; a key other users may read refused.
 */
class TlsListenersTest {
    @TempDir
    static Path directory;
    private static TestCertificates certificates;

    @BeforeAll
    static void make() throws Exception {
        certificates = TestCertificates.make(directory);
    }

    private static Map<String, String> tls(String... more) {
        Map<String, String> settings = new HashMap<>(certificates.serverSettings());
        settings.put("memcached.tls", "true");
        settings.put("okuyama.tls", "true");
        for (int i = 0; i < more.length; i += 2) {
            settings.put(more[i], more[i + 1]);
        }
        return settings;
    }

    /** Sends {@code request} on {@code socket} and reads {@code length} bytes of reply. */
    private static String call(SSLSocket socket, String request, int length) throws IOException {
        OutputStream out = socket.getOutputStream();
        out.write(request.getBytes(StandardCharsets.US_ASCII));
        out.flush();
        return new String(socket.getInputStream().readNBytes(length), StandardCharsets.US_ASCII);
    }

    @Test
    void textAndOkuyamaClientsAreServedOverTls() throws Exception {
        try (TestGateway gateway = TestGateway.start(tls());
             SSLSocket memcached = certificates.connect(gateway.port(), null);
             SSLSocket okuyama = certificates.connect(gateway.okuyamaPort(), null)) {
            assertEquals("STORED\r\n", call(memcached, "set k 0 0 5\r\nhello\r\n", 8));
            assertEquals("VALUE k 0 5\r\nhello\r\nEND\r\n", call(memcached, "get k\r\n", 25));
            assertTrue(memcached.getSession().getProtocol().startsWith("TLSv1."), memcached.getSession().getProtocol());
            String reply = call(okuyama, "2,aw==\n", 10);
            assertEquals("2,true,aG", reply.substring(0, 9), reply);
        }
    }

    @Test
    void opensslSClientCompletesTheHandshakeAndVerifiesTheChain() throws Exception {
        try (TestGateway gateway = TestGateway.start(tls())) {
            Process client = new ProcessBuilder("openssl", "s_client", "-connect", "127.0.0.1:" + gateway.port(),
                    "-CAfile", certificates.file("ca.pem").toString(), "-verify_return_error", "-brief", "-ign_eof")
                    .redirectErrorStream(true).start();
            // The gateway ends the connection after quit, which ends s_client.
            client.getOutputStream().write("version\r\nquit\r\n".getBytes(StandardCharsets.US_ASCII));
            client.getOutputStream().close();
            assertTrue(client.waitFor(30, TimeUnit.SECONDS));
            String output = new String(client.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(output.contains("Verification: OK"), output);
            assertTrue(output.contains("VERSION "), output);
        }
    }

    @Test
    void aPlainTextClientOnATlsPortIsRefusedCountedAndLeaksNothing() throws Exception {
        try (TestGateway gateway = TestGateway.start(tls());
             ClientConnection plain = ClientConnection.tcp(gateway.port(), 5000)) {
            plain.out().write("set k 0 0 1\r\nv\r\n".getBytes(StandardCharsets.US_ASCII));
            InputStream in = plain.in();
            byte[] reply = new byte[64];
            int n;
            try {
                n = in.read(reply);
                while (n > 0 && reply[0] == 0x15) { // a TLS alert record, then the end
                    n = in.read(reply);
                }
            } catch (IOException reset) {
                n = -1;
            }
            assertTrue(n <= 0, "a plain client got an answer");
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (gateway.gateway().metrics().refusals("memcached", "tls_handshake").count() == 0
                    && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertEquals(1, gateway.gateway().metrics().refusals("memcached", "tls_handshake").count());
        }
    }

    @Test
    void mutualTlsServesTrustedClientCertificatesOnly() throws Exception {
        try (TestGateway gateway = TestGateway.start(tls("tls.client_auth", "require",
                "tls.client_ca", certificates.file("ca.pem").toString()))) {
            try (SSLSocket trusted = certificates.connect(gateway.port(), "client")) {
                assertEquals("STORED\r\n", call(trusted, "set k 0 0 1\r\nv\r\n", 8));
            }
            for (String client : new String[] {null, "stranger", "expired"}) {
                // TLS 1.3 finishes the client's side before the server has judged its certificate: the refusal
                // shows at the first read.
                assertThrows(IOException.class, () -> {
                    try (SSLSocket refused = certificates.connect(gateway.port(), client)) {
                        String reply = call(refused, "version\r\n", 1);
                        if (reply.isEmpty()) {
                            throw new IOException("closed");
                        }
                    }
                }, String.valueOf(client));
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (gateway.gateway().metrics().refusals("memcached", "tls_handshake").count() < 3
                    && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertEquals(3, gateway.gateway().metrics().refusals("memcached", "tls_handshake").count(),
                    "no certificate, an untrusted one and an expired one: each refused and counted");
        }
    }

    @Test
    void aReloadReadsTheCertificateAgainWhileOpenConnectionsStay() throws Exception {
        Map<String, String> live = new ConcurrentHashMap<>(tls());
        try (TestGateway gateway = TestGateway.startReloadable(live);
             SSLSocket before = certificates.connect(gateway.port(), null)) {
            BigInteger first = ((X509Certificate) before.getSession().getPeerCertificates()[0]).getSerialNumber();
            certificates.server("server"); // the same files, a new certificate
            String summary = gateway.gateway().reload();
            assertTrue(summary.endsWith("TLS certificate read again"), summary);
            try (SSLSocket after = certificates.connect(gateway.port(), null)) {
                BigInteger second = ((X509Certificate) after.getSession().getPeerCertificates()[0])
                        .getSerialNumber();
                assertNotEquals(first, second, "a new connection gets the new certificate");
                assertEquals(second, certificates.certificate("server.pem").getSerialNumber());
            }
            assertTrue(call(before, "version\r\n", 8).startsWith("VERSION "), "the open connection stays");
        }
    }

    @Test
    void aKeyOtherUsersMayReadOrATlsListenerWithoutCertificateStopsTheStart() throws Exception {
        Path shared = directory.resolve("shared.key");
        Files.copy(certificates.file("server.key"), shared);
        Files.setPosixFilePermissions(shared, PosixFilePermissions.fromString("rw-r--r--"));
        ConfigurationException open = assertThrows(ConfigurationException.class,
                () -> TestGateway.start(tls("tls.key", shared.toString())));
        assertTrue(open.getMessage().contains("tls.key = " + shared) && open.getMessage().contains("chmod 600"),
                open.getMessage());
        Exception none = assertThrows(Exception.class, () -> TestGateway.start(Map.of("counter.tls", "true")));
        assertTrue(none.getMessage().contains("counter.tls is on, but no certificate is configured"),
                none.getMessage());
    }

    @Test
    void pymemcacheConnectsOverTlsWithItsOwnSslContext() throws Exception {
        try (TestGateway gateway = TestGateway.start(tls())) {
            String script = String.join("\n",
                    "import ssl, sys",
                    "from pymemcache.client.base import Client",
                    "context = ssl.create_default_context(cafile=sys.argv[2])",
                    "client = Client(('127.0.0.1', int(sys.argv[1])), tls_context=context)",
                    "client.set('py', b'over tls')",
                    "print(client.get('py').decode())");
            // Debian's python3-pymemcache, which bin/test installs, belongs to the system's Python.
            String python3 = Files.isExecutable(Path.of("/usr/bin/python3")) ? "/usr/bin/python3" : "python3";
            Process python = new ProcessBuilder(List.of(python3, "-c", script, Integer.toString(gateway.port()),
                    certificates.file("ca.pem").toString())).redirectErrorStream(true).start();
            assertTrue(python.waitFor(60, TimeUnit.SECONDS));
            String output = new String(python.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertEquals(0, python.exitValue(), output);
            assertEquals("over tls", output.strip());
        }
    }
}
