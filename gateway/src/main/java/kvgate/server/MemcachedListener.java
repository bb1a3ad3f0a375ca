package kvgate.server;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.timeout.IdleStateHandler;
import java.net.InetSocketAddress;
import java.util.function.Supplier;
import kvgate.dispatch.Dispatcher;
import kvgate.memcached.BinaryFrameDecoder;
import kvgate.memcached.BinaryResponseEncoder;
import kvgate.memcached.BinaryTranslator;
import kvgate.memcached.MemcachedConnection;

/**
 * The memcached binary protocol listener. Pipeline of each connection: guard (limits, idle) → frame decoder →
 * response encoder → connection handler (translator, dispatcher, ordered replies).
 */
final class MemcachedListener {
    static final String PROTOCOL = "memcached";

    private MemcachedListener() {
    }

    record Limits(int maxItemSize, long maxFrame, int maxInFlight, int idleTimeoutSeconds) {
    }

    static Channel bind(NetworkThreads threads, String host, int port, ConnectionGuard guard, Limits limits,
                        Supplier<BinaryTranslator> translators, Dispatcher dispatcher) throws StartupException {
        BinaryResponseEncoder encoder = new BinaryResponseEncoder();
        ServerBootstrap bootstrap = new ServerBootstrap()
                .group(threads.acceptors(), threads.workers())
                .channel(threads.serverChannel())
                .option(ChannelOption.SO_BACKLOG, 1024)
                .option(ChannelOption.SO_REUSEADDR, true)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childOption(ChannelOption.SO_KEEPALIVE, true)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel channel) {
                        var pipeline = channel.pipeline();
                        if (limits.idleTimeoutSeconds() > 0) {
                            pipeline.addLast(new IdleStateHandler(0, 0, limits.idleTimeoutSeconds()));
                        }
                        pipeline.addLast(guard)
                                .addLast(new BinaryFrameDecoder(limits.maxItemSize(), limits.maxFrame()))
                                .addLast(encoder)
                                .addLast(new MemcachedConnection(translators.get(), dispatcher,
                                        limits.maxInFlight()));
                    }
                });
        try {
            return bootstrap.bind(new InetSocketAddress(host, port)).sync().channel();
        } catch (Exception e) {
            throw new StartupException("cannot listen for memcached on " + host + ":" + port + ": " + e.getMessage(),
                    e);
        }
    }
}
