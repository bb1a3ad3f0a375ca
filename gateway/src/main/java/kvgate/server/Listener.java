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
import io.netty.handler.timeout.IdleStateHandler;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.Set;
import java.util.function.Consumer;

/**
 * The listeners. A TCP listener's connections, and a Unix domain socket listener's, all start their pipelines the same
 * way — idle timeout (when set), the connection guard — and the protocol adds its codec and
 * {@link ProtocolConnection}. A UDP listener is one channel
 * with one handler for every datagram.
 */
final class Listener {
    /** The least a TCP read asks for: a request of every common size fits in one read. */
    private static final int SMALLEST_READ = 2048;
    private static final int LARGEST_READ = 64 * 1024;
    /** The file type bits of a Unix mode, and a socket's type. */
    private static final int S_IFMT = 0170000;
    private static final int S_IFSOCK = 0140000;

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
                .childHandler(connections(idleTimeoutSeconds, guard, protocolHandlers));
        try {
            return bootstrap.bind(new InetSocketAddress(host, port)).sync().channel();
        } catch (Exception e) {
            throw new StartupException("cannot listen for " + protocol + " on " + host + ":" + port + ": "
                    + e.getMessage(), e);
        }
    }

    /**
     * A listener on a Unix domain socket, for clients on this host (as memcached's -s): the same pipeline as the
     * protocol's TCP listener, without TCP's options. A socket file left at the path by a server that is gone is
     * replaced, as memcached does; one that a server still answers on, or a file that is not a socket, is refused
     * rather than taken over. The socket is given {@code mode} at once (it is created with the process's umask,
     * which commonly lets no other user connect meanwhile) and removed when the listener closes.
     */
    static Channel bindUnix(NetworkThreads threads, String protocol, Path path, Set<PosixFilePermission> mode,
                            int idleTimeoutSeconds, ConnectionGuard guard, Consumer<ChannelPipeline> protocolHandlers)
            throws StartupException {
        ServerBootstrap bootstrap = new ServerBootstrap()
                .group(threads.acceptors(), threads.workers())
                .channel(threads.transport().unixServerChannel())
                .option(ChannelOption.SO_BACKLOG, 1024)
                .childOption(ChannelOption.RECVBUF_ALLOCATOR,
                        new AdaptiveRecvByteBufAllocator(SMALLEST_READ, SMALLEST_READ, LARGEST_READ))
                .childHandler(connections(idleTimeoutSeconds, guard, protocolHandlers));
        String where = "cannot listen for " + protocol + " on the Unix socket " + path + ": ";
        try {
            removeStale(path, where);
            Channel listener = bootstrap.bind(threads.transport().unixAddress(path)).sync().channel();
            listener.closeFuture().addListener(closed -> Files.deleteIfExists(path));
            try {
                Files.setPosixFilePermissions(path, mode);
            } catch (IOException e) {
                listener.close();
                throw e;
            }
            return listener;
        } catch (StartupException e) {
            throw e;
        } catch (Exception e) {
            throw new StartupException(where + e.getMessage(), e);
        }
    }

    /** Deletes a socket file nobody answers on; refuses a live one, or a file of another kind. */
    private static void removeStale(Path path, String where) throws IOException, StartupException {
        if (!Files.exists(path, LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        int type = (int) Files.getAttribute(path, "unix:mode", LinkOption.NOFOLLOW_LINKS) & S_IFMT;
        if (type != S_IFSOCK) {
            throw new StartupException(where + "a file that is not a socket is there");
        }
        try (SocketChannel probe = SocketChannel.open(UnixDomainSocketAddress.of(path))) {
            throw new StartupException(where + "a server listens on it");
        } catch (IOException nobodyThere) {
            Files.delete(path);
        }
    }

    /** The pipeline of each accepted connection: idle timeout (when set), the guard, then the protocol's own. */
    private static ChannelInitializer<Channel> connections(int idleTimeoutSeconds, ConnectionGuard guard,
                                                           Consumer<ChannelPipeline> protocolHandlers) {
        return new ChannelInitializer<>() {
            @Override
            protected void initChannel(Channel channel) {
                ChannelPipeline pipeline = channel.pipeline();
                if (idleTimeoutSeconds > 0) {
                    pipeline.addLast(new IdleStateHandler(0, 0, idleTimeoutSeconds));
                }
                pipeline.addLast(guard);
                protocolHandlers.accept(pipeline);
            }
        };
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
