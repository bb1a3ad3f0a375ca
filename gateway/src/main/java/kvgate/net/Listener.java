package kvgate.net;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.AdaptiveRecvByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.FixedRecvByteBufAllocator;
import io.netty.channel.ServerChannel;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.SocketChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Consumer;
import kvgate.config.StartupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The listeners. A TCP listener's connections, and a Unix domain socket listener's, all start their pipelines the same
 * way — TLS (when the listener has it), the {@link IdleCloser} (when a timeout is set), the connection guard — and the
 * protocol adds its codec and
 * {@link ProtocolConnection}. A UDP listener is one channel
 * with one handler for every datagram.
 */
public final class Listener {
    private static final Logger LOG = LoggerFactory.getLogger(Listener.class);
    /** The least a read of a connection asks for: a request of every common size fits in one read. */
    private static final int SMALLEST_READ = 2048;
    private static final int LARGEST_READ = 64 * 1024;
    /** The file type bits of a Unix mode, and a socket's type. */
    private static final int S_IFMT = 0170000;
    private static final int S_IFSOCK = 0140000;
    /** How much longer a socket's path is where it is bound first: {@code /.kvgate-<8 hex digits>/s}. */
    static final int STAGED_EXTRA = "/.kvgate-00000000/s".length();

    private Listener() {
    }

    public static Channel bind(NetworkThreads threads, String protocol, String host, int port, int idleTimeoutSeconds,
                        ConnectionGuard guard, Consumer<ChannelPipeline> protocolHandlers) throws StartupException {
        ServerBootstrap bootstrap = bootstrap(threads, threads.serverChannel(), idleTimeoutSeconds, guard,
                protocolHandlers)
                .option(ChannelOption.SO_REUSEADDR, true)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childOption(ChannelOption.SO_KEEPALIVE, true);
        try {
            return bootstrap.bind(new InetSocketAddress(host, port)).sync().channel();
        } catch (Exception e) {
            throw new StartupException("cannot listen for " + protocol + " on " + host + ":" + port + ": "
                    + e.getMessage(), e);
        }
    }

    /**
     * A listener on a Unix domain socket, for clients on this host (as memcached's -s): the same pipeline as the
     * protocol's TCP listener, without TCP's options.
     *
     * <p>The socket is bound in a new directory only this user may enter, given {@code mode} there, and only then
     * linked into place: bound at the path itself it would take connections, under the process's umask, before it
     * had its mode (memcached sets its umask around the bind instead, which a JVM cannot). A link, unlike a rename,
     * never replaces what another server put at the path meanwhile. A socket file left at the path by a server that
     * is gone is replaced, as memcached does; one that a server still answers on, or a file that is not a socket, is
     * refused rather than taken over. At close the file at the path is removed if it is still this listener's socket
     * (Netty removes only the name it bound, in the directory), so a server that took the path over since keeps its
     * own.
     */
    static Channel bindUnix(NetworkThreads threads, String protocol, Path path, Set<PosixFilePermission> mode,
                            int idleTimeoutSeconds, ConnectionGuard guard, Consumer<ChannelPipeline> protocolHandlers)
            throws StartupException {
        ServerBootstrap bootstrap = bootstrap(threads, threads.transport().unixServerChannel(), idleTimeoutSeconds,
                guard, protocolHandlers);
        String where = "cannot listen for " + protocol + " on the Unix socket " + path + ": ";
        Path staging = null;
        Channel listener = null;
        try {
            removeStale(path, where);
            staging = stagingDirectory(path);
            Path socket = staging.resolve("s");
            listener = bootstrap.bind(threads.transport().unixAddress(socket)).sync().channel();
            Files.setPosixFilePermissions(socket, mode);
            Object ours = Files.readAttributes(socket, BasicFileAttributes.class).fileKey();
            Files.createLink(path, socket);
            listener.closeFuture().addListener(closed -> removeIfOurs(path, ours));
            return listener;
        } catch (StartupException e) {
            throw e;
        } catch (FileAlreadyExistsException e) {
            if (listener != null) {
                listener.close();
            }
            throw new StartupException(where + "another server put a file there while this one started", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StartupException(where + "interrupted", e);
        } catch (Exception e) {
            if (listener != null) {
                listener.close();
            }
            throw new StartupException(where + e, e);
        } finally {
            if (staging != null) {
                try {
                    Files.deleteIfExists(staging.resolve("s"));
                    Files.deleteIfExists(staging);
                } catch (IOException e) {
                    LOG.warn("could not remove the directory {} the socket was bound in: {}", staging, e.toString());
                }
            }
        }
    }

    /**
     * A new directory beside {@code path} that only this user may enter, of a name of fixed length (so that
     * {@link #STAGED_EXTRA} bounds how much longer the socket's path is there).
     */
    private static Path stagingDirectory(Path path) throws IOException {
        Path parent = path.toAbsolutePath().getParent();
        for (int tries = 0; ; tries++) {
            Path directory = parent.resolve(String.format(".kvgate-%08x", ThreadLocalRandom.current().nextInt()));
            try {
                return Files.createDirectory(directory,
                        PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            } catch (FileAlreadyExistsException e) {
                if (tries == 100) {
                    throw e;
                }
            }
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
        // Without blocking: a live server whose backlog is full, or that is stopped, must not hold the start up.
        try (SocketChannel probe = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            probe.configureBlocking(false);
            // A Unix socket connects at once or fails: refused (stale), or EAGAIN when a live server's backlog is full
            // (taken below as a server that cannot be told apart from a live one).
            probe.connect(UnixDomainSocketAddress.of(path));
            throw new StartupException(where + "a server listens on it");
        } catch (ConnectException refused) {
            Files.deleteIfExists(path);
            LOG.info("replaced the socket {} that nobody listened on any more", path);
        } catch (IOException e) {
            // Not allowed to connect, say: not known to be stale, so not ours to remove.
            throw new StartupException(where + "cannot tell whether a server listens on it: " + e, e);
        }
    }

    /** Removes the socket at {@code path} if it is still the one this listener renamed there. */
    private static void removeIfOurs(Path path, Object ours) {
        try {
            Object there = Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS)
                    .fileKey();
            if (ours != null && ours.equals(there)) {
                Files.deleteIfExists(path);
            }
        } catch (NoSuchFileException gone) {
            // removed by someone else already
        } catch (IOException e) {
            LOG.warn("could not remove the socket {}: {}", path, e.toString());
        }
    }

    /**
     * What a stream listener of either kind is: the network threads, the backlog, the read buffer, and the pipeline
     * of each accepted connection (idle timeout when set, the guard, then the protocol's own).
     */
    private static ServerBootstrap bootstrap(NetworkThreads threads, Class<? extends ServerChannel> type,
                                             int idleTimeoutSeconds, ConnectionGuard guard,
                                             Consumer<ChannelPipeline> protocolHandlers) {
        return new ServerBootstrap()
                .group(threads.acceptors(), threads.workers())
                .channel(type)
                .option(ChannelOption.SO_BACKLOG, 1024)
                // Netty's default lets the read buffer shrink to 64 bytes on a connection of small requests: the
                // first larger one (a set among gets) then takes two or three reads, each a system call.
                .childOption(ChannelOption.RECVBUF_ALLOCATOR,
                        new AdaptiveRecvByteBufAllocator(SMALLEST_READ, SMALLEST_READ, LARGEST_READ))
                .childHandler(new ChannelInitializer<>() {
                    @Override
                    protected void initChannel(Channel channel) {
                        ChannelPipeline pipeline = channel.pipeline();
                        if (guard.tls() != null) {
                            pipeline.addLast(guard.tls().newHandler(channel.alloc()));
                        }
                        if (idleTimeoutSeconds > 0) {
                            pipeline.addLast(new IdleCloser(guard.protocol(), idleTimeoutSeconds,
                                    guard.requestsReported()));
                        }
                        pipeline.addLast(guard);
                        protocolHandlers.accept(pipeline);
                    }
                });
    }

    /**
     * A UDP listener. Each read takes at most {@code maxDatagram + 1} bytes, so the handler sees that a longer
     * datagram was longer (the rest of it is cut off by the socket) without a larger buffer being allocated.
     */
    public static Channel bindDatagram(NetworkThreads threads, String protocol, String host, int port, int maxDatagram,
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
