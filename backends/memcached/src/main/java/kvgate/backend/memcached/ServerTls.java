package kvgate.backend.memcached;

import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.OpenSslSessionContext;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslProvider;
import java.io.File;

/**
 * TLS to the pool's servers (memcached started with {@code -Z}): every TCP connection is TLS, the server's
 * certificate checked against the CA file given (or the JVM's trusted CAs) and, unless turned off, against the host
 * the server is named by; a client certificate is presented when one is configured, for servers that require one
 * ({@code ssl_verify_mode=2}). Sessions are not resumed (see {@link #of}). Connections to a Unix socket stay plain:
 * they never leave the host.
 */
final class ServerTls {
    private final SslContext context;

    private ServerTls(SslContext context) {
        this.context = context;
    }

    /**
     * @param ca CA certificates (PEM) the servers' certificates must chain to; empty for the JVM's trusted ones
     * @param cert the client certificate chain (PEM) to present, with {@code key}; both empty for none
     */
    static ServerTls of(String ca, String cert, String key, boolean verifyHost) {
        if (cert.isEmpty() != key.isEmpty()) {
            throw new IllegalArgumentException("memcached.server_cert and memcached.server_key go together");
        }
        try {
            SslContextBuilder builder = SslContextBuilder.forClient()
                    .sslProvider(OpenSsl.isAvailable() ? SslProvider.OPENSSL : SslProvider.JDK)
                    .protocols("TLSv1.3", "TLSv1.2")
                    // Stated either way: Netty's own default for clients has changed between versions.
                    .endpointIdentificationAlgorithm(verifyHost ? "HTTPS" : null);
            if (!ca.isEmpty()) {
                builder.trustManager(new File(ca));
            }
            if (!cert.isEmpty()) {
                builder.keyManager(new File(cert), new File(key));
            }
            SslContext context = builder.build();
            // No session resumption: memcached -Z that verifies client certificates sets no session id context,
            // and OpenSSL then fails every resumed handshake with an internal error.
            if (context.sessionContext() instanceof OpenSslSessionContext sessions) {
                sessions.setSessionCacheEnabled(false);
            } else {
                context.sessionContext().setSessionTimeout(1);
            }
            return new ServerTls(context);
        } catch (Exception e) {
            throw new IllegalArgumentException("memcached.server_ca, server_cert, server_key: " + e.getMessage(), e);
        }
    }

    /** A new connection's TLS handler, for the server at {@code tcp} (the name its certificate is checked against). */
    SslHandler handler(ByteBufAllocator allocator, ServerAddress.Tcp tcp) {
        return context.newHandler(allocator, tcp.host(), tcp.port());
    }
}
