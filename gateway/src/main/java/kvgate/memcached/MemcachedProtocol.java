package kvgate.memcached;

import io.netty.channel.Channel;
import io.netty.channel.ChannelPipeline;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Stream;
import kvgate.collections.BucketManifests;
import kvgate.collections.CollectionName;
import kvgate.collections.CollectionsManifest;
import kvgate.config.ConfigurationException;
import kvgate.config.GatewaySettings;
import kvgate.config.StartupException;
import kvgate.memcached.binary.BinaryFrame;
import kvgate.memcached.binary.BinaryFrameDecoder;
import kvgate.memcached.binary.BinaryResponseEncoder;
import kvgate.memcached.couchbase.CertificateUsers;
import kvgate.memcached.couchbase.ClusterConfig;
import kvgate.memcached.couchbase.ManagementEndpoint;
import kvgate.memcached.couchbase.SaslUsers;
import kvgate.memcached.text.TextCommand;
import kvgate.memcached.text.TextDecoder;
import kvgate.memcached.text.TextReplyEncoder;
import kvgate.net.GatewayVersion;
import kvgate.net.HttpAnswer;
import kvgate.net.ListenerSettings;
import kvgate.net.ListenerTls;
import kvgate.net.Listeners;
import kvgate.net.Protocol;
import kvgate.net.ProtocolConnection;
import kvgate.net.ProtocolContext;
import kvgate.net.RefusalLog;
import kvgate.net.ReadLimits;
import kvgate.spi.Capability;
import kvgate.spi.Setting;
import kvgate.spi.Settings;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The memcached binary protocol with Couchbase's additions (collections, SASL, sub-documents, the cluster map), and
 * memcached's text protocol on the same listeners (the first byte of a connection decides); and, when asked, the little of a Couchbase node's management port that an SDK's {@code waitUntilReady} needs.
 */
public final class MemcachedProtocol implements Protocol {
    private static final Logger LOG = LoggerFactory.getLogger(MemcachedProtocol.class);
    public static final String NAME = MemcachedStats.PROTOCOL;
    /**
     * The version the memcached port reports (binary Version, text {@code version}, {@code stats}). It starts with a
     * memcached release number because clients parse it to decide which protocol features to use; the semantics
     * served are memcached 1.6's.
     */
    public static final String VERSION = "1.6.0 kvgate/" + GatewayVersion.VERSION;
    public static final String ENABLE = Protocol.enableKey(NAME);
    public static final String BIND = NAME + ".bind";
    public static final String TEXT = NAME + ".text";
    public static final String MAX_FRAME = NAME + ".max_frame";
    public static final String SASL_PWDB = NAME + ".sasl_pwdb";
    public static final String CERT_USER = NAME + ".cert_user";
    public static final String CERT_USER_PREFIX = NAME + ".cert_user_prefix";
    public static final String CERT_USER_DELIMITERS = NAME + ".cert_user_delimiters";
    public static final String MGMT_ENABLE = NAME + ".mgmt_enable";
    public static final String MGMT_BIND = NAME + ".mgmt_bind";
    public static final String MGMT_PORT = NAME + ".mgmt_port";
    public static final String ADVERTISED_PORT = NAME + ".advertised_port";
    /** The management listener's name (in the logs, the meters and {@code Gateway.port}). */
    public static final String MANAGEMENT = "management";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public List<Setting> settings() {
        List<Setting> settings = new ArrayList<>(ListenerSettings.stream(NAME, "the memcached protocols",
                "the memcached (and Couchbase management) listener", true, 11211));
        settings.addAll(List.of(
                Setting.bool(TEXT, true, "serve memcached's text protocol on the memcached listeners beside the "
                        + "binary one, as memcached does: a connection's first byte decides (0x80 binary, anything "
                        + "else text); off: binary only, and a text line gets a binary error (see "
                        + "[docs/memcached-text.md](memcached-text.md))"),
                Setting.size(MAX_FRAME, "32m", 4096, 1L << 31,
                        "a request body longer than this gets \"too large\" and the connection is closed"),
                Setting.text(SASL_PWDB, "",
                        "password file of the users who may authenticate (a line `user:password` each, as "
                        + "memcached's `MEMCACHED_SASL_PWDB`); when set, a connection must authenticate before "
                        + "anything but the handshake (see [Authentication](memcached.md#authentication-sasl)); "
                        + "empty: no authentication required. It guards the memcached listeners only: okuyama, MPDB "
                        + "and the counter protocol have no authentication, so keep them on loopback"),
                Setting.choice(CERT_USER, "none", "the field of a verified client certificate that names the user a "
                        + "TLS connection logs in as, without SASL, as Couchbase maps certificates: `none`, "
                        + "`subject.cn`, `san.uri`, `san.email` or `san.dnsname`; the user must be in "
                        + "`memcached.sasl_pwdb`, else the connection is closed (see [Client certificates as "
                        + "logins](memcached.md#client-certificates-as-logins))",
                        Stream.concat(Stream.of("none"), CertificateUsers.FIELDS.stream()).toArray(String[]::new)),
                Setting.text(CERT_USER_PREFIX, "", "with `memcached.cert_user`: the first value of the field that "
                        + "starts with this is taken, without it (empty: the first value)"),
                Setting.text(CERT_USER_DELIMITERS, "", "with `memcached.cert_user`: characters that end the user "
                        + "name within the value (empty: the whole rest)"),
                Setting.bool(MGMT_ENABLE, false,
                        "serve the little of a Couchbase node's management (HTTP) port that an SDK's "
                        + "`waitUntilReady` asks, `GET /pools/default/buckets/<bucket>`, on `memcached.mgmt_port` "
                        + "(see [Couchbase SDKs](memcached.md#couchbase-sdks))"),
                Setting.text(MGMT_BIND, "",
                        "address of the management listener; empty: `memcached.bind`'s, as a client reaches the "
                        + "management port at the host it reached the memcached port at"),
                Setting.integer(MGMT_PORT, 8091, 1, 65535,
                        "the management (HTTP) port named in the cluster map given to Couchbase clients: the one "
                        + "their connection string gives for this gateway (Couchbase's 8091 unless it says "
                        + "otherwise); the management listener's port when `memcached.mgmt_enable` is on, else "
                        + "nothing listens there"),
                Setting.integer(ADVERTISED_PORT, 0, 0, 65535,
                        "the memcached port that cluster map names, where clients reach the gateway through a port "
                        + "mapping (NAT, a container's published port); 0: the port the client reached")));
        return settings;
    }

    @Override
    public void check(Settings settings) throws ConfigurationException {
        if (!settings.text(CERT_USER).equals("none")) {
            if (!settings.bool(GatewaySettings.tlsKey(NAME)) || settings.text(ListenerTls.CLIENT_AUTH).equals("none")
                    || settings.text(SASL_PWDB).isEmpty()) {
                throw new ConfigurationException(CERT_USER + " = " + settings.text(CERT_USER) + " logs in the users "
                        + "of " + SASL_PWDB + " by their TLS client certificates: it needs "
                        + GatewaySettings.tlsKey(NAME) + " = true, " + ListenerTls.CLIENT_AUTH
                        + " = optional or require, and " + SASL_PWDB);
            }
        }
        if (settings.bool(MGMT_ENABLE) && !settings.bool(ENABLE)) {
            throw new ConfigurationException(MGMT_ENABLE + " = true: the management port serves the memcached "
                    + "port's Couchbase clients, and " + ENABLE + " = false");
        }
    }

    @Override
    public boolean authenticates(Settings settings) {
        return !settings.text(SASL_PWDB).isEmpty();
    }

    @Override
    public Naming naming(ProtocolContext context) {
        BucketManifests manifests = context.manifests();
        return new Naming("<bucket>[:<scope>.<collection>]",
                where -> new Named(collection(manifests, where).namespace(), NAME + " " + where));
    }

    /** The collection {@code <bucket>[:<scope>.<collection>]} names, its default collection without a path. */
    private static CollectionsManifest.Collection collection(BucketManifests manifests, String where) {
        int colon = where.indexOf(':');
        String bucket = colon < 0 ? where : where.substring(0, colon);
        if (!manifests.hasBucket(bucket)) {
            throw new IllegalArgumentException("no bucket '" + bucket + "' (see the buckets setting)");
        }
        CollectionsManifest manifest = manifests.current(bucket);
        if (manifest == null) {
            throw new IllegalArgumentException("bucket " + bucket + "'s collections manifest is not loaded yet; try "
                    + "again");
        }
        String path = colon < 0 ? CollectionName.DEFAULT + "." + CollectionName.DEFAULT : where.substring(colon + 1);
        int dot = path.indexOf('.');
        CollectionsManifest.Scope scope = dot < 0 ? null : manifest.scope(path.substring(0, dot));
        CollectionsManifest.Collection collection = scope == null ? null : scope.collection(path.substring(dot + 1));
        if (collection == null) {
            throw new IllegalArgumentException("bucket " + bucket + " has no collection '" + path + "' (manifest "
                    + manifest.uidHex() + "); name it as <scope>.<collection>");
        }
        return collection;
    }

    @Override
    public void start(ProtocolContext context) throws ConfigurationException, StartupException {
        Settings settings = context.settings();
        String pwdb = settings.text(SASL_PWDB);
        // The users of the memcached port, and of its management port.
        SaslUsers users = pwdb.isEmpty() ? null : SaslUsers.read(SASL_PWDB, Path.of(pwdb));
        MemcachedStats stats = new MemcachedStats(context.metrics(), context.backends(), context.settingsInForce(),
                context.listeners().threads().threads());
        BinaryResponseEncoder encoder = new BinaryResponseEncoder();
        int maxItemSize = context.maxItemSize();
        long maxFrame = settings.size(MAX_FRAME);
        int mgmtPort = settings.intValue(MGMT_PORT);
        int advertisedPort = settings.intValue(ADVERTISED_PORT);
        // Asked at each HELLO, of the tree in force then: a reload may bring or take such a backend.
        BooleanSupplier keepsExpiry = () -> context.backends().get().stream()
                .anyMatch(instance -> instance.backend().capabilities().contains(Capability.KEEP_EXPIRY));
        // The port the cluster map names: the one this connection reached, or for a connection on the Unix socket,
        // the TCP listener's (an SDK given the map connects over TCP).
        AtomicInteger tcpPort = new AtomicInteger();
        ReadLimits limits = context.readLimits(NAME);
        boolean tls = settings.bool(GatewaySettings.tlsKey(NAME));
        RefusalLog overMaxFrame = new RefusalLog("closing memcached binary connections that sent a request body over "
                + MAX_FRAME + " (" + maxFrame + " bytes)", context.metrics().refusals(NAME, "max_frame")::increment);
        String certUser = settings.text(CERT_USER);
        CertificateUsers certificateUsers = certUser.equals("none") ? null : new CertificateUsers(certUser,
                settings.text(CERT_USER_PREFIX), settings.text(CERT_USER_DELIMITERS));
        // Asked at a connection's first request, once the handshake has verified the certificate; a refusal is
        // counted and logged here, and the translator closes the connection.
        Function<Channel, Supplier<CertificateUsers.Login>> certificate = certificateUsers == null ? channel -> null
                : channel -> () -> {
                    CertificateUsers.Login login = certificateUsers.login(ListenerTls.peerCertificate(channel), users);
                    if (login instanceof CertificateUsers.Refused refused) {
                        stats.certificateRefused(channel.remoteAddress(), refused.why());
                    }
                    return login;
                };
        Consumer<ChannelPipeline> binary = pipeline -> pipeline
                .addLast(new BinaryFrameDecoder(maxItemSize, maxFrame).limits(limits).refusals(overMaxFrame))
                .addLast(new ProtocolConnection<>(NAME, BinaryFrame.class,
                        new BinaryTranslator(context.manifests(), context.clock(), stats, users,
                                new ClusterConfig(advertisedPort(advertisedPort,
                                        pipeline.channel().localAddress() instanceof InetSocketAddress local
                                                ? local.getPort() : tcpPort.get()), mgmtPort, tls),
                                maxItemSize, keepsExpiry, pipeline.channel().remoteAddress(),
                                certificate.apply(pipeline.channel())),
                        encoder, context.dispatcher(), context.maxInFlight()));
        TextReplyEncoder textEncoder = new TextReplyEncoder();
        // A backend keeping expiries through stores reads them (memcached's reads do not tell them); leases, counter
        // expiries and chosen CAS values are served where every backend keeps them.
        ItemFeatures features = new ItemFeatures(context.allBackendsHave(Capability.KEEP_EXPIRY),
                context.allBackendsHave(Capability.LEASES), context.allBackendsHave(Capability.ARITHMETIC_EXPIRY),
                context.allBackendsHave(Capability.CHOSEN_CAS));
        // A get of many keys may run past memcached's line bound; up to a value's size, as memcached's own buffer
        // grows for one.
        RefusalLog hangUps = new RefusalLog("closing memcached text connections without a reply, for a line over "
                + TextDecoder.MAX_LINE + " bytes or an HTTP request", context.metrics().refusals(NAME,
                "text_line")::increment);
        Consumer<ChannelPipeline> text = pipeline -> pipeline
                .addLast(new TextDecoder(maxItemSize, maxItemSize).limits(limits).refusals(hangUps))
                .addLast(new ProtocolConnection<>(NAME, TextCommand.class,
                        new TextTranslator(context.manifests(), context.clock(), stats, users, features,
                                pipeline.channel().remoteAddress(), certificate.apply(pipeline.channel())),
                        textEncoder, context.dispatcher(), context.maxInFlight()));
        Consumer<ChannelPipeline> handlers = settings.bool(TEXT) ? pipeline -> pipeline.addLast(
                new FirstByteSwitch(binary, text)) : binary;
        context.listeners().listen(NAME, settings, 0, context.idleTimeout(), handlers,
                tcp -> tcpPort.set(((InetSocketAddress) tcp.localAddress()).getPort()));
        if (settings.bool(MGMT_ENABLE)) {
            // The map names the memcached port as that port's own map does: the advertised one, else the one its
            // listener took.
            ClusterConfig cluster = new ClusterConfig(advertisedPort(advertisedPort, tcpPort.get()), mgmtPort, tls);
            String bind = settings.text(MGMT_BIND);
            BucketManifests manifests = context.manifests();
            // Every SDK instance opens its own connections here (a few each, closed when idle): as many as the
            // protocols' clients may hold, counted apart from them.
            Channel management = context.listeners().listenBeside(MANAGEMENT, bind.isEmpty() ? settings.text(BIND)
                            : bind, mgmtPort, HttpAnswer.IDLE_SECONDS,
                    settings.intValue(GatewaySettings.MAX_CONNECTIONS), Listeners.accessList(NAME, settings),
                    context.listeners().tls(NAME, settings),
                    HttpAnswer.pipeline(() -> new ManagementEndpoint(manifests, users, cluster, certificateUsers)));
            InetSocketAddress served = (InetSocketAddress) management.localAddress();
            LOG.info("Couchbase management port (waitUntilReady) on http://{}:{}{}<bucket>",
                    served.getHostString(), served.getPort(), ManagementEndpoint.BUCKETS_PATH);
        }
    }

    /**
     * The memcached port Couchbase clients are told to use: {@code memcached.advertised_port}, or, when it is 0, the
     * port they reached.
     */
    private static int advertisedPort(int advertised, int reached) {
        return advertised != 0 ? advertised : reached;
    }
}
