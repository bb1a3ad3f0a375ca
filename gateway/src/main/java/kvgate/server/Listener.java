package kvgate.server;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.timeout.IdleStateHandler;
import java.net.InetSocketAddress;
import java.util.function.Consumer;

/**
 * A TCP listener of one protocol. Every connection's pipeline starts the same way — idle timeout (when set), the
 * connection guard — and the protocol adds its codec and {@link ProtocolConnection}.
 */
final class Listener {
    private Listener() {
    }

    static Channel bind(NetworkThreads threads, String protocol, String host, int port, int idleTimeoutSeconds,
                        ConnectionGuard guard, Consumer<ChannelPipeline> protocolHandlers) throws StartupException {
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
                        ChannelPipeline pipeline = channel.pipeline();
                        if (idleTimeoutSeconds > 0) {
                            pipeline.addLast(new IdleStateHandler(0, 0, idleTimeoutSeconds));
                        }
                        pipeline.addLast(guard);
                        protocolHandlers.accept(pipeline);
                    }
                });
        try {
            return bootstrap.bind(new InetSocketAddress(host, port)).sync().channel();
        } catch (Exception e) {
            throw new StartupException("cannot listen for " + protocol + " on " + host + ":" + port + ": "
                    + e.getMessage(), e);
        }
    }
}
