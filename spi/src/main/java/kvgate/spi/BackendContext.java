package kvgate.spi;

import io.netty.channel.Channel;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoEventLoop;
import io.netty.channel.epoll.EpollDomainSocketChannel;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioDomainSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.channel.uring.IoUringDomainSocketChannel;
import io.netty.channel.uring.IoUringIoHandler;
import io.netty.channel.uring.IoUringSocketChannel;
import java.time.Clock;

/**
 * What the gateway gives a backend it opens.
 *
 * <p>Netty appears in the plugin contract here alone, for one reason: a backend that talks to servers over the
 * network (the memcached and Redis backends) runs its connections on the gateway's own network threads, so a request
 * and its backend round trip stay on one thread with no hand-over. A backend that keeps its data in this process
 * ignores {@link #eventLoops()}.
 *
 * @param name the instance name, for logs and thread names: {@code <name>} for {@code backends.<name>}, the type
 *     ({@code local}) for the backend of {@code backend = <type>}
 * @param settings the values of the settings the factory declared, validated, defaults filled in
 * @param clock the time source for expiry; tests pass a controllable one
 * @param maxItemSize the largest value, in bytes, a store may produce (appends included)
 * @param eventLoops the gateway's network threads: a backend that talks to servers over the network runs its
 *     connections on them (no thread of its own per request or connection); never block on them
 * @param counterRules how counters are kept, for a backend that is the counter store
 */
public record BackendContext(String name, Settings settings, Clock clock, int maxItemSize,
                             EventLoopGroup eventLoops, CounterRules counterRules) {

    /** A context with the default counter rules, for a backend that is not a counter store (or a test's). */
    public BackendContext(String name, Settings settings, Clock clock, int maxItemSize, EventLoopGroup eventLoops) {
        this(name, settings, clock, maxItemSize, eventLoops, CounterRules.DEFAULT);
    }

    /**
     * The socket type for a connection made on {@code loop}, one of {@link #eventLoops()}: the gateway's
     * {@code io_transport} decides it (NIO, epoll or io_uring), for its listeners as for a backend's connections, and
     * each has a Unix domain socket type beside its TCP one.
     *
     * @param unixSocket whether the connection goes to a Unix domain socket rather than over TCP
     */
    public static Class<? extends Channel> socketType(EventLoop loop, boolean unixSocket) {
        if (loop instanceof IoEventLoop io) {
            if (io.isIoType(IoUringIoHandler.class)) {
                return unixSocket ? IoUringDomainSocketChannel.class : IoUringSocketChannel.class;
            }
            if (io.isIoType(EpollIoHandler.class)) {
                return unixSocket ? EpollDomainSocketChannel.class : EpollSocketChannel.class;
            }
            if (io.isIoType(NioIoHandler.class)) {
                return unixSocket ? NioDomainSocketChannel.class : NioSocketChannel.class;
            }
        }
        throw new IllegalStateException("no socket type runs on the event loop " + loop);
    }
}
