package kvgate.load.bench;

import java.io.IOException;
import java.io.InputStream;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocketFactory;
import javax.net.ssl.TrustManagerFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;

/** Part 6's certificates, made with openssl: a CA for the run, and a server certificate for 127.0.0.1 it signs. */
final class Certificates {
    private Certificates() {
    }

    /** Writes ca.pem, server.pem and server.key (readable by this user alone) into {@code directory}. */
    static void make(Path directory) throws IOException, InterruptedException {
        Files.writeString(directory.resolve("san.ext"), "subjectAltName=IP:127.0.0.1\n");
        run(directory, "openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out",
                "ca.pem", "-days", "30", "-subj", "/CN=kvgate bench CA");
        run(directory, "openssl", "req", "-newkey", "rsa:2048", "-nodes", "-keyout", "server.key", "-out",
                "server.csr", "-subj", "/CN=127.0.0.1");
        run(directory, "openssl", "x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key",
                "-CAcreateserial", "-out", "server.pem", "-days", "30", "-extfile", "san.ext");
        Files.setPosixFilePermissions(directory.resolve("server.key"), PosixFilePermissions.fromString("rw-------"));
    }

    /** Sockets that trust the CA of {@code ca} (PEM) alone, to ask the run's TLS servers whether they are up. */
    static SSLSocketFactory trusting(Path ca) throws IOException, GeneralSecurityException {
        KeyStore trusted = KeyStore.getInstance(KeyStore.getDefaultType());
        trusted.load(null, null);
        try (InputStream in = Files.newInputStream(ca)) {
            trusted.setCertificateEntry("ca", CertificateFactory.getInstance("X.509").generateCertificate(in));
        }
        TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        trust.init(trusted);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(null, trust.getTrustManagers(), null);
        return context.getSocketFactory();
    }

    private static void run(Path directory, String... command) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(List.of(command)).directory(directory.toFile()).redirectErrorStream(true)
                .redirectOutput(directory.resolve("openssl.log").toFile()).start();
        if (process.waitFor() != 0) {
            throw new IOException(String.join(" ", command) + " failed: " + Files.readString(
                    directory.resolve("openssl.log")));
        }
    }
}
