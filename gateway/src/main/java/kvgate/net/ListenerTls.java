package kvgate.net;

import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslProvider;
import java.io.File;
import java.nio.file.Path;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import javax.net.ssl.SSLPeerUnverifiedException;
import kvgate.config.ConfigurationException;
import kvgate.config.GatewaySettings;
import kvgate.spi.SecretFiles;
import kvgate.spi.Setting;
import kvgate.spi.Settings;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * TLS for the stream listeners: one certificate and key (PEM) for every listener that turns it on with
 * {@code <listener>.tls = true}, optional client certificates checked against a CA file (mutual TLS), TLS 1.2 and
 * 1.3 only by default. The context is built with OpenSSL (netty-tcnative's statically linked BoringSSL) where it
 * loads, the JDK's engine where it does not; a reload reads the files again, and connections accepted after it get
 * the new certificate while those open keep theirs.
 */
public final class ListenerTls {
    private static final Logger LOG = LoggerFactory.getLogger(ListenerTls.class);

    public static final String CERT = "tls.cert";
    public static final String KEY = "tls.key";
    public static final String CLIENT_CA = "tls.client_ca";
    public static final String CLIENT_AUTH = "tls.client_auth";
    public static final String PROTOCOLS = "tls.protocols";
    public static final String CIPHERS = "tls.ciphers";

    /** The shared block's settings. */
    public static final List<Setting> SETTINGS = List.of(
            Setting.text(CERT, "", "the certificate chain (PEM, leaf first) that every listener with "
                    + "`<listener>.tls` on presents; read again by a reload"),
            Setting.text(KEY, "", "its private key (PEM, PKCS#8 or PKCS#1); a key other users may read or change "
                    + "stops the start (`chmod 600`)"),
            Setting.text(CLIENT_CA, "", "CA certificates (PEM) that client certificates must chain to (mutual TLS)"),
            Setting.choice(CLIENT_AUTH, "none", "whether TLS clients must present a certificate signed by "
                    + "`tls.client_ca`: `none`, `optional` (checked when given) or `require`",
                    "none", "optional", "require"),
            Setting.text(PROTOCOLS, "TLSv1.3,TLSv1.2", "TLS versions offered"),
            Setting.text(CIPHERS, "", "TLS 1.2 cipher suites offered, comma-separated (empty: the provider's "
                    + "defaults, which leave out the weak ones)"));

    private final AtomicReference<SslContext> context = new AtomicReference<>();
    private volatile String described = "off";

    /** The listeners' TLS as {@code settings} say; builds the context when a certificate is configured. */
    public static ListenerTls of(Settings settings) throws ConfigurationException {
        ListenerTls tls = new ListenerTls();
        tls.reload(settings);
        return tls;
    }

    /**
     * Reads the certificate, key and CA files again; connections accepted from now on use them.
     *
     * @throws ConfigurationException naming the setting whose file is missing, unreadable, not private or not PEM
     */
    public void reload(Settings settings) throws ConfigurationException {
        install(prepare(settings));
    }

    /** A reload read and checked, not yet in force: {@link #install} puts it in force. */
    public record Prepared(SslContext context, String described) {
    }

    /**
     * Reads and checks what {@code settings} name, without putting it in force, so that a reload refused for another
     * reason leaves the certificate in force as it was.
     */
    public Prepared prepare(Settings settings) throws ConfigurationException {
        String cert = settings.text(CERT);
        String key = settings.text(KEY);
        if (cert.isEmpty() && key.isEmpty()) {
            return new Prepared(null, "off");
        }
        if (cert.isEmpty() || key.isEmpty()) {
            throw new ConfigurationException("set both " + CERT + " and " + KEY + ", or neither");
        }
        try {
            SecretFiles.checkPrivate(KEY, Path.of(key));
        } catch (IllegalArgumentException e) {
            throw new ConfigurationException(e.getMessage());
        }
        SslProvider provider = OpenSsl.isAvailable() ? SslProvider.OPENSSL : SslProvider.JDK;
        String clientAuth = settings.text(CLIENT_AUTH);
        String ca = settings.text(CLIENT_CA);
        if (!clientAuth.equals("none") && ca.isEmpty()) {
            throw new ConfigurationException(CLIENT_AUTH + " = " + clientAuth + " needs " + CLIENT_CA);
        }
        try {
            SslContextBuilder builder = SslContextBuilder.forServer(new File(cert), new File(key))
                    .sslProvider(provider)
                    .protocols(list(settings.text(PROTOCOLS)));
            List<String> ciphers = Arrays.asList(list(settings.text(CIPHERS)));
            if (!ciphers.isEmpty()) {
                builder.ciphers(ciphers);
            }
            if (!clientAuth.equals("none")) {
                builder.trustManager(new File(ca)).clientAuth(clientAuth.equals("require") ? ClientAuth.REQUIRE
                        : ClientAuth.OPTIONAL);
            }
            return new Prepared(builder.build(), (provider == SslProvider.OPENSSL ? "OpenSSL ("
                    + OpenSsl.versionString() + ")" : "the JDK's engine") + ", " + settings.text(PROTOCOLS)
                    + ", client certificates " + clientAuth + ", from " + cert);
        } catch (Exception e) {
            throw new ConfigurationException(CERT + " = " + cert + ", " + KEY + " = " + key
                    + (ca.isEmpty() ? "" : ", " + CLIENT_CA + " = " + ca) + ": " + e.getMessage());
        }
    }

    /** Puts a prepared reload in force for the connections accepted from now on. */
    public void install(Prepared prepared) {
        context.set(prepared.context());
        described = prepared.described();
        if (prepared.context() != null) {
            LOG.info("TLS: {}", described);
        }
    }

    private static String[] list(String text) {
        return Arrays.stream(text.split(",")).map(String::strip).filter(s -> !s.isEmpty()).toArray(String[]::new);
    }

    /** Whether a certificate is configured. */
    public boolean configured() {
        return context.get() != null;
    }

    /**
     * The certificate {@code channel}'s client presented and the handshake verified against {@code tls.client_ca};
     * null when it presented none or the connection is not over TLS. Asked once the handshake is done (a protocol's
     * first request comes after it).
     */
    public static X509Certificate peerCertificate(Channel channel) {
        SslHandler handler = channel.pipeline().get(SslHandler.class);
        if (handler == null) {
            return null;
        }
        try {
            Certificate[] chain = handler.engine().getSession().getPeerCertificates();
            return chain.length > 0 && chain[0] instanceof X509Certificate leaf ? leaf : null;
        } catch (SSLPeerUnverifiedException none) {
            return null;
        }
    }

    /** A new connection's TLS handler, with the context in force now. */
    SslHandler newHandler(ByteBufAllocator allocator) {
        return context.get().newHandler(allocator);
    }

    @Override
    public String toString() {
        return described;
    }
}
