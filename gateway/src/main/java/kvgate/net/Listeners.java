package kvgate.net;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import kvgate.config.ConfigurationException;
import kvgate.config.GatewaySettings;
import kvgate.config.StartupException;
import kvgate.metrics.GatewayMetrics;
import kvgate.spi.Settings;

/**
 * Every listener of one gateway, bound in one place: the protocols' (TCP with a Unix domain socket beside it, or UDP)
 * and the ones beside them (the admin and metrics ports, Couchbase's management port). Client connections of every
 * protocol count against one {@code max_connections}; the others are counted apart. All are closed together.
 */
public final class Listeners implements AutoCloseable {
    private final NetworkThreads threads;
    private final GatewayMetrics metrics;
    private final UnixSockets sockets;
    private final int maxConnections;
    private final ReadBudget readBudget;
    private final ListenerTls tls;
    /** Client connections open over every protocol's listeners. */
    private final AtomicInteger clientConnections = new AtomicInteger();
    private final ChannelGroup channels = new DefaultChannelGroup("listeners", GlobalEventExecutor.INSTANCE);
    /** Each TCP or UDP listener by its name, for {@link #port}. */
    private final Map<String, Channel> named = new ConcurrentHashMap<>();
    /** What listens where, in the order bound, for the start-up log. */
    private final List<String> described = new ArrayList<>();

    /**
     * @param sockets the protocols' Unix domain sockets, checked already
     * @param maxConnections client connections held at once over all protocols, 0 for no limit
     * @param readBudget what partly read requests of all protocols may hold together
     * @param tls the certificate of the listeners that serve TLS
     */
    public Listeners(NetworkThreads threads, GatewayMetrics metrics, UnixSockets sockets, int maxConnections,
                     ReadBudget readBudget, ListenerTls tls) {
        this.tls = tls;
        this.threads = threads;
        this.metrics = metrics;
        this.sockets = sockets;
        this.maxConnections = maxConnections;
        this.readBudget = readBudget;
        metrics.gauge("kvgate.read_budget.held", "bytes held by partly read requests over all connections",
                readBudget::held);
        metrics.gauge("kvgate.read_budget.limit", "bytes partly read requests may hold together (read_budget)",
                readBudget::limit);
    }

    /** What partly read requests of every protocol may hold together. */
    public ReadBudget readBudget() {
        return readBudget;
    }

    public NetworkThreads threads() {
        return threads;
    }

    /**
     * A stream protocol's listener, on {@code <protocol>.bind} and {@code <protocol>.port}, and on its Unix domain
     * socket when {@code <protocol>.socket} names one: the same pipeline on both, under one guard, so its connections
     * count once against the limits whichever way they came.
     *
     * @param ownLimit the protocol's own limit on its connections, 0 for none beyond {@code max_connections}
     * @param idleSeconds a connection idle this long is closed, 0 for never
     * @return the TCP listener
     */
    public Channel listen(String protocol, Settings settings, int ownLimit, int idleSeconds,
                          Consumer<ChannelPipeline> handlers) throws StartupException {
        return listen(protocol, settings, ownLimit, idleSeconds, handlers, tcp -> { });
    }

    /**
     * As {@link #listen(String, Settings, int, int, Consumer)}, telling {@code tcpBound} of the TCP listener before
     * the Unix socket takes connections: for a protocol whose connections on the socket name the TCP port.
     */
    public Channel listen(String protocol, Settings settings, int ownLimit, int idleSeconds,
                          Consumer<ChannelPipeline> handlers, Consumer<Channel> tcpBound) throws StartupException {
        ConnectionGuard guard = new ConnectionGuard(protocol, maxConnections, clientConnections, ownLimit, metrics,
                true, accessList(protocol, settings), tls(protocol, settings));
        Channel listener = bind(protocol, settings.text(protocol + ".bind"), settings.intValue(protocol + ".port"),
                idleSeconds, guard, handlers);
        tcpBound.accept(listener);
        Channel socket = sockets.listen(threads, protocol, idleSeconds, guard, handlers);
        if (socket != null) {
            synchronized (this) {
                channels.add(socket);
                described.add(protocol + " on " + sockets.path(protocol) + " (Unix socket)");
            }
        }
        return listener;
    }

    /**
     * A listener beside the protocols' (the operators', the Couchbase management port): its connections counted apart
     * from clients' up to {@code limit}.
     */
    public Channel listenBeside(String name, String host, int port, int idleSeconds, int limit, AccessList allowed,
                                ListenerTls tls, Consumer<ChannelPipeline> handlers) throws StartupException {
        return bind(name, host, port, idleSeconds,
                new ConnectionGuard(name, limit, new AtomicInteger(), 0, metrics, false, allowed, tls), handlers);
    }

    /** The certificate every TLS listener presents, which a reload may replace. */
    public ListenerTls tls() {
        return tls;
    }

    /**
     * The TLS of the listener whose switch is {@code <switchKey>.tls}, or null when it is off; on without a
     * certificate stops the start.
     */
    public ListenerTls tls(String switchKey, Settings settings) throws StartupException {
        if (!settings.bool(GatewaySettings.tlsKey(switchKey))) {
            return null;
        }
        if (!tls.configured()) {
            throw new StartupException(GatewaySettings.tlsKey(switchKey) + " is on, but no certificate is configured: "
                    + "set "
                    + ListenerTls.CERT + " and " + ListenerTls.KEY);
        }
        return tls;
    }

    /** The access list of {@code listener} ({@code <listener>.allow}); a bad one stops the start, naming it. */
    public static AccessList accessList(String listener, Settings settings) throws StartupException {
        try {
            return AccessList.parse(GatewaySettings.allowKey(listener),
                    settings.text(GatewaySettings.allowKey(listener)));
        } catch (ConfigurationException e) {
            throw new StartupException(e.getMessage(), e);
        }
    }

    private Channel bind(String name, String host, int port, int idleSeconds, ConnectionGuard guard,
                         Consumer<ChannelPipeline> handlers) throws StartupException {
        Channel listener = Listener.bind(threads, name, host, port, idleSeconds, guard, handlers);
        added(name, listener, "");
        return listener;
    }

    /** A datagram protocol's listener, on {@code <protocol>.bind} and {@code <protocol>.port}. */
    public Channel listenDatagram(String protocol, Settings settings, int maxDatagram, ChannelHandler handler)
            throws StartupException {
        Channel listener = Listener.bindDatagram(threads, protocol, settings.text(protocol + ".bind"),
                settings.intValue(protocol + ".port"), maxDatagram, handler);
        added(protocol, listener, " (UDP)");
        return listener;
    }

    private synchronized void added(String name, Channel listener, String kind) {
        channels.add(listener);
        named.put(name, listener);
        described.add(name + " on " + listener.localAddress() + kind);
    }

    /**
     * The port the listener named {@code name} took (useful with port 0).
     *
     * @throws IllegalStateException when no such listener is bound (its protocol or port is turned off)
     */
    public int port(String name) {
        Channel listener = named.get(name);
        if (listener == null) {
            throw new IllegalStateException("no " + name + " listener is bound: its protocol or port is turned off");
        }
        return ((InetSocketAddress) listener.localAddress()).getPort();
    }

    /** What listens where, for the start-up log: {@code memcached on /0.0.0.0:11211, ...}. */
    public synchronized String describe() {
        return String.join(", ", described);
    }

    /** Stops listening; the connections accepted stay until their event loops close. */
    @Override
    public void close() {
        channels.close().awaitUninterruptibly();
    }
}
