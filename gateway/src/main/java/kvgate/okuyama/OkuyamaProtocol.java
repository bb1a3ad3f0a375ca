package kvgate.okuyama;

import io.netty.channel.ChannelPipeline;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import kvgate.config.ConfigurationException;
import kvgate.config.StartupException;
import kvgate.net.ListenerSettings;
import kvgate.net.Protocol;
import kvgate.net.ProtocolConnection;
import kvgate.net.ProtocolContext;
import kvgate.net.RefusalLog;
import kvgate.net.ReadLimits;
import kvgate.spi.Namespace;
import kvgate.spi.Setting;
import kvgate.spi.Settings;

/** The okuyama text protocol: one request line, one reply line, every key in one namespace. */
public final class OkuyamaProtocol implements Protocol {
    public static final String NAME = "okuyama";
    public static final String NAMESPACE = NAME + ".namespace";
    public static final String MAX_LINE = NAME + ".max_line";
    public static final String TRANSACTIONS = NAME + ".transactions";
    public static final String LOCK_WAIT = NAME + ".lock_wait_s";
    public static final String EXPORT_LIMIT = NAME + ".export_limit";
    public static final String MAX_VALUE = NAME + ".max_value";
    public static final String SCRIPTS = NAME + ".scripts";
    public static final String SCRIPT_TIMEOUT = NAME + ".script_timeout_ms";
    public static final String SCRIPT_MEMORY = NAME + ".script_memory";
    /** Scripts waiting for a thread, past which one is refused. */
    private static final int SCRIPT_QUEUE = 64;

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public List<Setting> settings() {
        List<Setting> settings = new ArrayList<>(ListenerSettings.stream(NAME, "the okuyama text protocol", false,
                8888));
        settings.addAll(List.of(
                Setting.text(NAMESPACE, "default",
                        "where okuyama keys, tags and the search index live; `default` is plain memcached clients' "
                        + "namespace, so both protocols see the same items"),
                Setting.size(MAX_LINE, "4m", 1024, 1L << 30,
                        "longest request line; a longer one is dropped as it arrives and answered with the method's "
                        + "length error"),
                Setting.size(MAX_VALUE, "1536k", 1, 1_572_864, "the largest value okuyama clients may store, which "
                        + "initClient (0) announces: the reference's 1,572,864 bytes by default (and at most); a "
                        + "value over it, or over `max_item_size`, is answered `Value Length Error`"),
                Setting.bool(TRANSACTIONS, false, "okuyama's TransactionMode: startTransaction (37) hands out "
                        + "transaction codes, lockData (30) and releaseLockData (31) lock and unlock keys, and "
                        + "okuyama writes of a key another transaction locked wait for the lock to go; off (the "
                        + "reference's default), they answer as okuyama without it (see [Transactions and "
                        + "locks](okuyama.md#transactions-and-locks))"),
                Setting.integer(LOCK_WAIT, 10, 0, 3600, "the longest lockData waits for a lock, and an okuyama write "
                        + "for another transaction's lock to go, in seconds; past it the write answers an error (the "
                        + "reference's writes wait without end)"),
                Setting.integer(EXPORT_LIMIT, 100_000, 1, Integer.MAX_VALUE, "the most items UtilClient's data "
                        + "export (101) and key list (103) give, as they are read whole into memory; a keyspace "
                        + "holding more answers an error line before the closing `-1`"),
                Setting.bool(SCRIPTS, false, "run the JavaScript of getValueScript and getValueScriptForUpdate (8, "
                        + "9) on values, sandboxed (no Java classes, no I/O, no regular expressions, a time and an "
                        + "allocation limit); off, they answer an error (see [Value "
                        + "scripts](okuyama.md#value-scripts))"),
                Setting.integer(SCRIPT_TIMEOUT, 1000, 10, 60_000, "the longest one value script runs, in "
                        + "milliseconds"),
                Setting.size(SCRIPT_MEMORY, "64m", 1 << 20, 1L << 34, "the most one value script may allocate "
                        + "(counted as it allocates, garbage included)")));
        return settings;
    }

    @Override
    public Naming naming(ProtocolContext context) throws ConfigurationException {
        return Naming.single(namespace(context.settings()), NAME);
    }

    private static Namespace namespace(Settings settings) throws ConfigurationException {
        String text = settings.text(NAMESPACE);
        try {
            return new Namespace(text);
        } catch (IllegalArgumentException e) {
            throw new ConfigurationException(NAMESPACE + " = " + text + ": " + e.getMessage());
        }
    }

    @Override
    public void start(ProtocolContext context) throws ConfigurationException, StartupException {
        Namespace namespace = namespace(context.settings());
        OkuyamaReplyEncoder encoder = new OkuyamaReplyEncoder();
        int maxLine = (int) Math.min(Integer.MAX_VALUE - 8, context.settings().size(MAX_LINE));
        int maxItemSize = context.maxItemSize();
        ReadLimits readLimits = context.readLimits(NAME);
        OkuyamaTranslator.Limits limits = new OkuyamaTranslator.Limits(
                (int) context.settings().size(MAX_VALUE), maxItemSize, context.settings().intValue(EXPORT_LIMIT));
        RefusalLog overMaxLine = new RefusalLog("answering okuyama lines over " + MAX_LINE + " (" + maxLine
                + " bytes) with their length error", context.metrics().refusals(NAME, "max_line")::increment);
        OkuyamaTransactions transactions = new OkuyamaTransactions(namespace,
                context.settings().bool(TRANSACTIONS), context.settings().intValue(LOCK_WAIT) * 1000L,
                context.clock(), new RefusalLog("okuyama writes answered an error after waiting " + LOCK_WAIT
                        + " for another transaction's lock", context.metrics().refusals(NAME, "lock_wait")::increment));
        // Value scripts run on threads of their own, as many as the network has cores, at most two.
        ValueScripts scripts = context.settings().bool(SCRIPTS) ? new ValueScripts(
                Math.min(2, Runtime.getRuntime().availableProcessors()), SCRIPT_QUEUE,
                context.settings().intValue(SCRIPT_TIMEOUT), context.settings().size(SCRIPT_MEMORY),
                new RefusalLog("okuyama value scripts refused: too many waiting to run",
                        context.metrics().refusals(NAME, "script_queue")::increment),
                new RefusalLog("okuyama value scripts stopped at okuyama.script_timeout_ms or "
                        + "okuyama.script_memory", context.metrics().refusals(NAME, "script_limit")::increment))
                : null;
        Consumer<ChannelPipeline> handlers = pipeline -> pipeline.addLast(new OkuyamaLineDecoder(maxLine)
                .limits(readLimits).refusals(overMaxLine))
                .addLast(new ProtocolConnection<>(NAME, OkuyamaLine.class,
                        new OkuyamaTranslator(namespace, context.clock(), limits, transactions, scripts),
                        encoder, context.dispatcher(), context.maxInFlight()));
        context.listeners().listen(NAME, context.settings(), 0, context.idleTimeout(), handlers);
    }
}
