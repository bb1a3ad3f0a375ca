package kvgate.testing;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.nio.NioIoHandler;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import kvgate.spi.Backend;
import kvgate.spi.BackendContext;
import kvgate.spi.BackendFactory;
import kvgate.spi.CounterRules;
import kvgate.spi.Item;
import kvgate.spi.Namespace;
import kvgate.spi.Operation;
import kvgate.spi.Result;
import kvgate.spi.Setting;
import kvgate.spi.Settings;
import kvgate.spi.StoreMode;

/**
 * A backend plugin's backend opened as the gateway opens one, for a backend module's own tests: its declared
 * settings with their defaults, some given, and network threads of its own to run its connections on.
 */
public final class BackendUnderTest implements AutoCloseable {
    private final EventLoopGroup loops = new MultiThreadIoEventLoopGroup(1,
            Epoll.isAvailable() ? EpollIoHandler.newFactory() : NioIoHandler.newFactory());
    private final Backend backend;

    /** @param given settings by the factory's own keys ({@code servers}, not {@code memcached.servers}) */
    public BackendUnderTest(BackendFactory factory, Map<String, String> given) throws Exception {
        this(factory, given, CounterRules.DEFAULT);
    }

    /** A counter store's, with the gateway's counter rules as {@code counterRules}. */
    public BackendUnderTest(BackendFactory factory, Map<String, String> given, CounterRules counterRules)
            throws Exception {
        Map<String, String> values = new HashMap<>();
        for (Setting setting : factory.settings()) {
            values.put(setting.key(), setting.defaultValue());
        }
        values.putAll(given);
        backend = factory.open(new BackendContext(factory.type(), new Settings(values), Clock.systemUTC(), 1 << 20,
                loops, counterRules));
    }

    /** The settings of a gateway's configuration under {@code <type>.}, by the factory's own keys. */
    public static Map<String, String> under(String type, Map<String, String> gatewaySettings) {
        Map<String, String> own = new HashMap<>();
        gatewaySettings.forEach((key, value) -> {
            if (key.startsWith(type + ".")) {
                own.put(key.substring(type.length() + 1), value);
            }
        });
        return own;
    }

    public Backend backend() {
        return backend;
    }

    /** Runs one operation and waits for its result, ten seconds at most. */
    public Result run(Operation operation) throws Exception {
        return backend.execute(operation).toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    /** A set of {@code key} to {@code value} in the default namespace, never expiring. */
    public static Operation set(String key, String value) {
        return new Operation.Store(Namespace.DEFAULT, bytes(key), StoreMode.SET, bytes(value), 0, Item.NEVER, 0);
    }

    /** A get of {@code key} in the default namespace. */
    public static Operation get(String key) {
        return new Operation.Get(Namespace.DEFAULT, bytes(key));
    }

    /** The value a result holds as UTF-8 text, or the result itself as text when it holds none (for a message). */
    public static String valueText(Result result) {
        return result instanceof Result.Value value ? new String(value.item().value(), StandardCharsets.UTF_8)
                : String.valueOf(result);
    }

    public static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public void close() throws Exception {
        try {
            backend.close();
        } finally {
            loops.shutdownGracefully(0, 1, TimeUnit.SECONDS).await(5, TimeUnit.SECONDS);
        }
    }
}
