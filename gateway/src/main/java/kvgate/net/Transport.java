package kvgate.net;

import io.netty.channel.IoHandlerFactory;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollDatagramChannel;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerDomainSocketChannel;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.DatagramChannel;
import io.netty.channel.socket.nio.NioDatagramChannel;
import io.netty.channel.socket.nio.NioServerDomainSocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.unix.DomainSocketAddress;
import io.netty.channel.uring.IoUring;
import io.netty.channel.uring.IoUringDatagramChannel;
import io.netty.channel.uring.IoUringIoHandler;
import io.netty.channel.uring.IoUringServerDomainSocketChannel;
import io.netty.channel.uring.IoUringServerSocketChannel;
import java.net.SocketAddress;
import java.net.UnixDomainSocketAddress;
import java.nio.file.Path;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import kvgate.config.ConfigurationException;
import kvgate.config.GatewaySettings;

/**
 * How the network threads wait for and do their I/O ({@code io_transport}): Linux's epoll, Linux's io_uring, or
 * Java NIO. Each brings its own event loop and channel types (TCP, UDP, Unix domain sockets), which must all match.
 */
public enum Transport {
    EPOLL("epoll", Epoll::isAvailable, Epoll::unavailabilityCause, EpollIoHandler::newFactory,
            EpollServerSocketChannel.class, EpollDatagramChannel.class, EpollServerDomainSocketChannel.class),
    /**
     * Submits the reads and writes of every ready connection together and takes their completions in one system
     * call, where epoll makes one call a read and one a write: less of each request's time in entering the kernel.
     * Not the default: containers' default seccomp profiles often forbid it, and it is the newer of Netty's two.
     */
    IO_URING("io_uring", IoUring::isAvailable, IoUring::unavailabilityCause, IoUringIoHandler::newFactory,
            IoUringServerSocketChannel.class, IoUringDatagramChannel.class, IoUringServerDomainSocketChannel.class),
    NIO("nio", () -> true, () -> null, NioIoHandler::newFactory,
            NioServerSocketChannel.class, NioDatagramChannel.class, NioServerDomainSocketChannel.class);

    /** The setting's value that takes epoll where the platform has it, else NIO. */
    public static final String AUTO = "auto";

    private final String setting;
    private final BooleanSupplier available;
    private final Supplier<Throwable> unavailable;
    private final Supplier<IoHandlerFactory> factory;
    private final Class<? extends ServerChannel> serverChannel;
    private final Class<? extends DatagramChannel> datagramChannel;
    private final Class<? extends ServerChannel> unixServerChannel;

    Transport(String setting, BooleanSupplier available, Supplier<Throwable> unavailable,
              Supplier<IoHandlerFactory> factory, Class<? extends ServerChannel> serverChannel,
              Class<? extends DatagramChannel> datagramChannel, Class<? extends ServerChannel> unixServerChannel) {
        this.setting = setting;
        this.available = available;
        this.unavailable = unavailable;
        this.factory = factory;
        this.serverChannel = serverChannel;
        this.datagramChannel = datagramChannel;
        this.unixServerChannel = unixServerChannel;
    }

    /**
     * The transport an {@code io_transport} value names. One named but not available here is refused with the
     * platform's reason rather than replaced: an operator who asked for io_uring should not find epoll running.
     */
    public static Transport of(String setting) throws ConfigurationException {
        if (setting.equals(AUTO)) {
            return EPOLL.available.getAsBoolean() ? EPOLL : NIO;
        }
        for (Transport transport : values()) {
            if (transport.setting.equals(setting)) {
                if (!transport.available.getAsBoolean()) {
                    throw new ConfigurationException(GatewaySettings.IO_TRANSPORT + " = " + setting
                            + ": not available here: " + transport.unavailable.get());
                }
                return transport;
            }
        }
        throw new ConfigurationException(GatewaySettings.IO_TRANSPORT + " = " + setting + ": not a transport");
    }

    IoHandlerFactory ioHandlerFactory() {
        return factory.get();
    }

    Class<? extends ServerChannel> serverChannel() {
        return serverChannel;
    }

    Class<? extends DatagramChannel> datagramChannel() {
        return datagramChannel;
    }

    Class<? extends ServerChannel> unixServerChannel() {
        return unixServerChannel;
    }

    /** A Unix domain socket's address as this transport takes it: NIO's are the JDK's, the native ones Netty's. */
    SocketAddress unixAddress(Path path) {
        return this == NIO ? UnixDomainSocketAddress.of(path) : new DomainSocketAddress(path.toString());
    }

    @Override
    public String toString() {
        return setting;
    }
}
