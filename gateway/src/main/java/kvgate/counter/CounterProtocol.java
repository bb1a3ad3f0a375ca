package kvgate.counter;

import io.netty.channel.ChannelPipeline;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import kvgate.config.StartupException;
import kvgate.net.ListenerSettings;
import kvgate.net.Protocol;
import kvgate.net.ProtocolConnection;
import kvgate.net.ProtocolContext;
import kvgate.net.ReadLimits;
import kvgate.spi.Setting;

/**
 * The counter protocol, the yrmcds counter extension: distributed resource counters, kept in the gateway's counter
 * store. Its keys are the extension's own ({@code counter.port}, {@code counter.max_connections}).
 */
public final class CounterProtocol implements Protocol {
    public static final String NAME = CounterStats.PROTOCOL;
    public static final String ENABLE = Protocol.enableKey(NAME);
    public static final String MAX_CONNECTIONS = NAME + ".max_connections";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public List<Setting> settings() {
        List<Setting> settings = new ArrayList<>(ListenerSettings.stream(NAME,
                "the counter protocol", false, 11215));
        settings.add(
                Setting.integer(MAX_CONNECTIONS, 0, 0, 1_000_000,
                        "counter connections held at once; more are closed at once (0: no limit)"));
        return settings;
    }

    @Override
    public void start(ProtocolContext context) throws StartupException {
        CounterStats stats = new CounterStats(context.metrics(), context.counterStore());
        CounterResponseEncoder encoder = new CounterResponseEncoder();
        // Owners must be unique among every gateway sharing a counter store: a random instance id per process, then
        // a sequence number per connection.
        String instance = Long.toHexString(new SecureRandom().nextLong());
        AtomicLong connectionNumbers = new AtomicLong();
        ReadLimits limits = context.readLimits(NAME);
        Consumer<ChannelPipeline> handlers = pipeline -> pipeline.addLast(new CounterFrameDecoder().limits(limits))
                .addLast(new ProtocolConnection<>(NAME, CounterFrame.class,
                        new CounterTranslator(instance + "/" + connectionNumbers.incrementAndGet(), stats),
                        encoder, context.dispatcher(), context.maxInFlight()));
        // Never closed for being idle: a connection's holdings last as long as it does, and a client that holds a
        // lock quietly must not lose it to the timeout meant for idle cache clients.
        context.listeners().listen(NAME, context.settings(), context.settings().intValue(MAX_CONNECTIONS), 0,
                handlers);
    }
}
