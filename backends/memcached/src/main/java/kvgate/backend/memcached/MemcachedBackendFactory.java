package kvgate.backend.memcached;

import java.nio.file.Path;
import java.util.List;
import kvgate.spi.Backend;
import kvgate.spi.BackendContext;
import kvgate.spi.BackendFactory;
import kvgate.spi.SecretFiles;
import kvgate.spi.Setting;
import kvgate.spi.Settings;
import org.pf4j.Extension;

/** Opens a pool of memcached servers: {@code backend = memcached}, settings {@code memcached.*}. */
@Extension
public final class MemcachedBackendFactory implements BackendFactory {

    @Override
    public String type() {
        return "memcached";
    }

    @Override
    public String description() {
        return "A pool of real memcached servers, keys placed by ketama as libmemcached and "
                + "twemproxy place them; see [The memcached backend](memcached-backend.md).";
    }

    @Override
    public List<Setting> settings() {
        return List.of(
                Setting.text("servers", "127.0.0.1:11211",
                        "the memcached backend's servers, `host:port[:weight][ name],...` (IPv6 hosts in brackets; "
                        + "the name, as in twemproxy, is what ketama hashes), or `/path[:weight][ name]` for a "
                        + "memcached on a Unix domain socket of this host"),
                Setting.integer("timeout_ms", 1000, 1, 600_000,
                        "a request to a memcached server unanswered this long fails with a temporary failure, and "
                        + "the connection is re-established"),
                Setting.integer("failure_limit", 3, 1, 1_000_000,
                        "failures in a row (timeouts, refused or lost connections) that eject a server"),
                Setting.integer("retry_ms", 1000, 10, 3_600_000,
                        "an ejected server's requests fail at once; it is probed again after this long"),
                Setting.text("sasl_user", "",
                        "the user every connection authenticates as, for servers started with SASL (`-S`); empty: "
                        + "the servers do not ask"),
                Setting.secret("sasl_password", "that user's password (keep the configuration file readable by the "
                        + "gateway's user alone)"),
                Setting.bool("server_tls", false, "speak TLS to every server reached over TCP (memcached `-Z`), "
                        + "checking its certificate; Unix-socket servers stay plain (see [TLS to the "
                        + "servers](memcached-backend.md))"),
                Setting.text("server_ca", "", "CA certificates (PEM) the servers' certificates must chain to (empty: "
                        + "the JVM's trusted CAs)"),
                Setting.bool("server_verify_host", true, "check that a server's certificate names the host or "
                        + "address it is listed by in `memcached.servers`"),
                Setting.text("server_cert", "", "a client certificate chain (PEM) presented to servers that require "
                        + "one (`ssl_verify_mode=2`), with `memcached.server_key`"),
                Setting.text("server_key", "", "its private key (PEM); a key other users may read stops the start "
                        + "(`chmod 600`)"));
    }

    @Override
    public Backend open(BackendContext context) {
        Settings settings = context.settings();
        List<ServerAddress> servers;
        try {
            servers = ServerAddress.parseList(settings.text("servers"));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("memcached.servers: " + e.getMessage(), e);
        }
        if (context.eventLoops() == null) {
            throw new IllegalArgumentException("the memcached backend needs the gateway's event loops");
        }
        String user = settings.text("sasl_user");
        String password = settings.secret("sasl_password");
        if (user.isEmpty() != password.isEmpty()) {
            throw new IllegalArgumentException("memcached.sasl_user and memcached.sasl_password go together: "
                    + (user.isEmpty() ? "a password without a user" : "a user without a password"));
        }
        ServerCredentials credentials = user.isEmpty() ? null : new ServerCredentials(user, password);
        ServerTls tls = settings.bool("server_tls") ? ServerTls.of(settings.text("server_ca"),
                settings.text("server_cert"), privateKey(settings.text("server_key")),
                settings.bool("server_verify_host")) : null;
        return new MemcachedBackend(servers, context.eventLoops(), context.clock(), settings.integer("timeout_ms"),
                settings.intValue("failure_limit"), settings.integer("retry_ms"), context.maxItemSize(),
                credentials, tls);
    }

    /** A private key's path, refused when other users may read or change the file (as ssh refuses such keys). */
    private static String privateKey(String path) {
        if (!path.isEmpty()) {
            SecretFiles.checkPrivate("memcached.server_key", Path.of(path));
        }
        return path;
    }
}
