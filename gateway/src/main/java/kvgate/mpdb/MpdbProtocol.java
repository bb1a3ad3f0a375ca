package kvgate.mpdb;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import kvgate.config.ConfigurationException;
import kvgate.config.StartupException;
import kvgate.net.ListenerSettings;
import kvgate.net.Listeners;
import kvgate.net.Protocol;
import kvgate.net.ProtocolContext;
import kvgate.spi.Namespace;
import kvgate.spi.Setting;
import kvgate.spi.Settings;

/** MPDB: MsgPack maps over UDP, each client's requests run in the order of their echo tags. */
public final class MpdbProtocol implements Protocol {
    public static final String NAME = MpdbDatagramHandler.PROTOCOL;
    public static final String NAMESPACE_PREFIX = NAME + ".namespace_prefix";
    public static final String SERVER_TIMEOUT_MS = NAME + ".server_timeout_ms";
    public static final String WINDOW = NAME + ".window";
    public static final String MAX_DATAGRAM = NAME + ".max_datagram";
    public static final String CLIENT_EXPIRY_S = NAME + ".client_expiry_s";
    public static final String CLIENT_MEMORY = NAME + ".client_memory";
    public static final String REPLY_RATIO = NAME + ".reply_ratio";
    public static final String REPLY_RATE = NAME + ".reply_rate";
    public static final String REPLY_BURST = NAME + ".reply_burst";
    /** The meter of the clients whose ordering state is held. */
    public static final String CLIENTS_METER = "kvgate.mpdb.clients";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public List<Setting> settings() {
        List<Setting> settings = new ArrayList<>(ListenerSettings.datagram(NAME, "MPDB", "the MPDB listener",
                false, 7000));
        settings.addAll(List.of(
                Setting.text(NAMESPACE_PREFIX, "mpdb:",
                        "collection `c` lives in namespace `<prefix>c`, node `n`'s private bucket in "
                        + "`<prefix>node:n`; empty: collection `default` is plain memcached clients' namespace"),
                Setting.integer(SERVER_TIMEOUT_MS, 3000, 1, 3_600_000,
                        "how long a missing echo tag holds up the requests after it (the document's server timeout); "
                        + "also accepted as `mpdb.server_timeout`"),
                Setting.integer(WINDOW, 10, 1, 10_000,
                        "echo tags buffered ahead of the last one run (later ones are dropped), and replies kept to "
                        + "answer resends"),
                Setting.size(MAX_DATAGRAM, "65507", 512, 65507,
                        "longest request datagram taken and reply sent (65507 is the most UDP carries); a longer "
                        + "request gets an error reply when its echo can be read"),
                Setting.integer(CLIENT_EXPIRY_S, 120, 1, 86_400 * 7,
                        "a client's ordering state is forgotten after this many seconds without a datagram from it "
                        + "that was run or answered"),
                Setting.size(CLIENT_MEMORY, "64m", 64 << 10, 1L << 30,
                        "memory all clients' ordering state may take (buffered requests, cached replies); the least "
                        + "used clients are forgotten beyond it"),
                Setting.integer(REPLY_RATIO, 10, 0, 100_000,
                        "reply bytes a source address earns for each byte it sends (see "
                        + "[Reflection](mpdb.md#reflection))"),
                Setting.size(REPLY_RATE, "64k", 0, 1L << 30,
                        "reply bytes a second each source address earns whatever it sends"),
                Setting.size(REPLY_BURST, "256k", 512, 1L << 30,
                        "most reply bytes a source address may have in hand, and what a new one starts with; a reply "
                        + "beyond a source's bytes is not sent, counted as "
                        + "`kvgate_datagrams_dropped_total{reason=\"reply_budget\"}` (its client resends the "
                        + "request)")));
        return settings;
    }

    /** MPDB's server timeout is also accepted without its unit, as its document names it. */
    @Override
    public Map<String, String> aliases() {
        return Map.of(NAME + ".server_timeout", SERVER_TIMEOUT_MS);
    }

    @Override
    public Naming naming(ProtocolContext context) throws ConfigurationException {
        MpdbNamespaces namespaces = namespaces(context.settings());
        return new Naming("<collection>|node:<id>", where -> new Named(namespace(namespaces, where), "MPDB " + where));
    }

    private static Namespace namespace(MpdbNamespaces namespaces, String where) {
        if (where.startsWith("node:")) {
            try {
                return namespaces.bucket(Long.parseUnsignedLong(where.substring("node:".length())));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("node:<id> needs an unsigned 64-bit id, not '" + where + "'");
            }
        }
        try {
            return namespaces.collection(where);
        } catch (MpdbNamespaces.BadName e) {
            throw new IllegalArgumentException(e.getMessage());
        }
    }

    private static MpdbNamespaces namespaces(Settings settings) throws ConfigurationException {
        String text = settings.text(NAMESPACE_PREFIX);
        try {
            return new MpdbNamespaces(text);
        } catch (IllegalArgumentException e) {
            throw new ConfigurationException(NAMESPACE_PREFIX + " = " + text + ": " + e.getMessage());
        }
    }

    @Override
    public void start(ProtocolContext context) throws ConfigurationException, StartupException {
        Settings settings = context.settings();
        int maxDatagram = Math.toIntExact(settings.size(MAX_DATAGRAM));
        // No reply datagram holds more pairs than it has bytes, so a scan never needs more.
        MpdbTranslator translator = new MpdbTranslator(namespaces(settings), maxDatagram);
        MpdbDatagramHandler handler = new MpdbDatagramHandler(translator, context.dispatcher(), context.metrics(),
                maxDatagram, settings.intValue(WINDOW), settings.integer(SERVER_TIMEOUT_MS),
                Duration.ofSeconds(settings.integer(CLIENT_EXPIRY_S)), settings.size(CLIENT_MEMORY),
                Listeners.accessList(NAME, settings), new ReplyBudget(settings.integer(REPLY_RATIO),
                        settings.size(REPLY_RATE), settings.size(REPLY_BURST), System::nanoTime));
        context.metrics().gauge(CLIENTS_METER, "MPDB clients whose ordering state the gateway holds",
                handler::clients);
        context.listeners().listenDatagram(NAME, settings, maxDatagram, handler);
    }
}
