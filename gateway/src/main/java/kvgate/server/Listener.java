package kvgate.server;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.AdaptiveRecvByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.FixedRecvByteBufAllocator;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.timeout.IdleStateHandler;
import java.net.InetSocketAddress;
import java.util.function.Consumer;

/**
 * The listeners. A TCP listener's connections all start their pipelines the same way — idle timeout (when set), the
 * connection guard — and the protocol adds its codec and {@link ProtocolConnection}. A UDP listener is one channel
 * with one handler for every datagram.
 */
final class Listener {
    /** The least a TCP read asks for: a request of every common size fits in one read. */
    private static final int SMALLEST_READ = 2048;
    private static final int LARGEST_READ = 64 * 1024;

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
                // Netty's default lets the read buffer shrink to 64 bytes on a connection of small requests: the
                // first larger one (a set among gets) then takes two or three reads, each a system call.
                .childOption(ChannelOption.RECVBUF_ALLOCATOR,
                        new AdaptiveRecvByteBufAllocator(SMALLEST_READ, SMALLEST_READ, LARGEST_READ))
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

    /**
     * A UDP listener. Each read takes at most {@code maxDatagram + 1} bytes, so the handler sees that a longer
     * datagram was longer (the rest of it is cut off by the socket) without a larger buffer being allocated.
     */
    static Channel bindDatagram(NetworkThreads threads, String protocol, String host, int port, int maxDatagram,
                                ChannelHandler handler) throws StartupException {
        Bootstrap bootstrap = new Bootstrap()
                .group(threads.workers())
                .channel(threads.datagramChannel())
                .option(ChannelOption.SO_REUSEADDR, true)
                .option(ChannelOption.SO_RCVBUF, 1 << 20)
                .option(ChannelOption.RECVBUF_ALLOCATOR, new FixedRecvByteBufAllocator(maxDatagram + 1))
                .handler(handler);
        try {
            return bootstrap.bind(new InetSocketAddress(host, port)).sync().channel();
        } catch (Exception e) {
            throw new StartupException("cannot listen for " + protocol + " on " + host + ":" + port + " (UDP): "
                    + e.getMessage(), e);
        }
    }
}
