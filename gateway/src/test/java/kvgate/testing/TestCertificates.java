package kvgate.testing;

import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;

/**
 * A test CA and the certificates it signs, made with the {@code openssl} command as an operator would make them:
 * a server certificate for localhost, 127.0.0.1 and ::1, a client certificate, a client certificate that has
 * expired, and a client certificate signed by nobody the gateway trusts. Keys are written readable by their owner alone, as the gateway requires.
 */
public final class TestCertificates {
    /** The password of every PKCS#12 store made here. */
    public static final String PASSWORD = "changeit";
    private final Path directory;

    private TestCertificates(Path directory) {
        this.directory = directory;
    }

    /** Makes the CA and every certificate under {@code directory}. */
    public static TestCertificates make(Path directory) throws Exception {
        TestCertificates made = new TestCertificates(directory);
        made.openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.pem", "-days",
                "3650", "-subj", "/CN=kvgate test CA");
        made.server("server");
        made.signed("client", "/CN=test client", "ca");
        made.signed("expired", "/CN=expired client", "ca", "-1"); // ended a day ago
        made.openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "stranger.key", "-out",
                "stranger.pem", "-days", "3650", "-subj", "/CN=nobody's client");
        for (String name : List.of("client", "stranger", "expired")) {
            made.openssl("pkcs12", "-export", "-in", name + ".pem", "-inkey", name + ".key", "-out", name + ".p12",
                    "-passout", "pass:" + PASSWORD);
        }
        for (String key : List.of("ca.key", "server.key", "client.key", "stranger.key", "expired.key")) {
            Files.setPosixFilePermissions(directory.resolve(key), PosixFilePermissions.fromString("rw-------"));
        }
        return made;
    }

    /** Signs a new server certificate and key named {@code name} (for a reload: the same names replaced). */
    public void server(String name) throws Exception {
        Files.writeString(directory.resolve("san.ext"), "subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1\n");
        openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", name + ".key", "-out", name + ".csr", "-subj",
                "/CN=localhost");
        openssl("x509", "-req", "-in", name + ".csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
                "-out", name + ".pem", "-days", "3650", "-extfile", "san.ext");
        Files.setPosixFilePermissions(directory.resolve(name + ".key"), PosixFilePermissions.fromString("rw-------"));
    }

    /**
     * Signs a client certificate (and its PKCS#12 store for {@link #connect}) named {@code name}, with
     * {@code subject} and, unless null, the subject alternative names {@code san} in openssl's form
     * ({@code URI:couchbase://alice@gateway,email:alice@example.com}).
     */
    public void client(String name, String subject, String san) throws Exception {
        openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", name + ".key", "-out", name + ".csr", "-subj",
                subject);
        List<String> sign = new ArrayList<>(List.of("x509", "-req", "-in", name + ".csr", "-CA", "ca.pem", "-CAkey",
                "ca.key", "-CAcreateserial", "-out", name + ".pem", "-days", "3650"));
        if (san != null) {
            Files.writeString(directory.resolve(name + ".ext"), "subjectAltName=" + san + "\n");
            sign.addAll(List.of("-extfile", name + ".ext"));
        }
        openssl(sign.toArray(String[]::new));
        openssl("pkcs12", "-export", "-in", name + ".pem", "-inkey", name + ".key", "-out", name + ".p12",
                "-passout", "pass:" + PASSWORD);
        Files.setPosixFilePermissions(directory.resolve(name + ".key"), PosixFilePermissions.fromString("rw-------"));
    }

    private void signed(String name, String subject, String ca) throws Exception {
        signed(name, subject, ca, "3650");
    }

    /** A certificate valid for {@code days} from now (negative: it ended that many days ago). */
    private void signed(String name, String subject, String ca, String days) throws Exception {
        openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", name + ".key", "-out", name + ".csr", "-subj",
                subject);
        openssl("x509", "-req", "-in", name + ".csr", "-CA", ca + ".pem", "-CAkey", ca + ".key", "-CAcreateserial",
                "-out", name + ".pem", "-days", days);
    }

    private void openssl(String... arguments) throws Exception {
        List<String> command = new ArrayList<>(List.of("openssl"));
        command.addAll(List.of(arguments));
        Process process = new ProcessBuilder(command).directory(directory.toFile()).redirectErrorStream(true)
                .start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
            throw new IllegalStateException("openssl " + String.join(" ", arguments) + " failed: " + output);
        }
    }

    public Path file(String name) {
        return directory.resolve(name);
    }

    /** The gateway settings that give its TLS listeners the server certificate. */
    public java.util.Map<String, String> serverSettings() {
        return java.util.Map.of("tls.cert", file("server.pem").toString(), "tls.key", file("server.key").toString());
    }

    /** The certificate a PEM file holds (the first). */
    public X509Certificate certificate(String pem) throws Exception {
        try (InputStream in = new FileInputStream(file(pem).toFile())) {
            return (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in);
        }
    }

    /**
     * A TLS client connection to {@code port} on 127.0.0.1 that trusts the test CA, presenting {@code client}'s
     * certificate ("client", "stranger") or none (null). The handshake is done before it returns.
     */
    public SSLSocket connect(int port, String client) throws Exception {
        KeyStore trusted = KeyStore.getInstance("PKCS12");
        trusted.load(null, null);
        trusted.setCertificateEntry("ca", certificate("ca.pem"));
        TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        trust.init(trusted);
        KeyManagerFactory keys = null;
        if (client != null) {
            KeyStore own = KeyStore.getInstance("PKCS12");
            try (InputStream in = new FileInputStream(file(client + ".p12").toFile())) {
                own.load(in, PASSWORD.toCharArray());
            }
            keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            keys.init(own, PASSWORD.toCharArray());
        }
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(keys == null ? null : keys.getKeyManagers(), trust.getTrustManagers(), null);
        SSLSocket socket = (SSLSocket) context.getSocketFactory().createSocket("127.0.0.1", port);
        socket.setSoTimeout(5000);
        try {
            socket.startHandshake();
        } catch (IOException e) {
            socket.close();
            throw e;
        }
        return socket;
    }
}
