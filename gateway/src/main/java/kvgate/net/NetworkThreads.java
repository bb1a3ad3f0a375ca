package kvgate.net;

import io.micrometer.core.instrument.Timer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.socket.DatagramChannel;
import io.netty.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import kvgate.config.StartupException;

/** The gateway's network threads, on the {@link Transport} configured. */
public final class NetworkThreads implements AutoCloseable {
    private final EventLoopGroup acceptors;
    private final EventLoopGroup workers;
    private final Transport transport;
    private final int threads;
    /** The probe of the workers' lag, once started; null until then, or when not asked for. */
    private LoopLag lag;

    /**
     * @param threads worker threads, 0 for two per core
     * @throws StartupException when the transport cannot make the threads' loops (io_uring's rings take locked
     *     memory, which a container may limit below what one per thread needs, though one ring could be made)
     */
    public NetworkThreads(int threads, Transport transport) throws StartupException {
        this.transport = transport;
        this.threads = threads == 0 ? 2 * Runtime.getRuntime().availableProcessors() : threads;
        IoHandlerFactory factory = transport.ioHandlerFactory();
        EventLoopGroup made = null;
        try {
            made = new MultiThreadIoEventLoopGroup(1, factory);
            this.workers = new MultiThreadIoEventLoopGroup(this.threads, factory);
        } catch (RuntimeException e) {
            if (made != null) {
                made.shutdownGracefully(0, 0, TimeUnit.SECONDS).awaitUninterruptibly();
            }
            throw new StartupException("io_transport = " + transport + ": the network threads' event loops "
                    + "could not be made", e);
        }
        this.acceptors = made;
    }

    public EventLoopGroup acceptors() {
        return acceptors;
    }

    public EventLoopGroup workers() {
        return workers;
    }

    /** Probes each worker's lag every {@code periodMillis} into {@code timer} (0: never), until closed. */
    public void probeLag(Timer timer, long periodMillis) {
        if (periodMillis > 0 && lag == null) {
            lag = new LoopLag(workers, timer, periodMillis);
        }
    }

    public int threads() {
        return threads;
    }

    public Class<? extends ServerChannel> serverChannel() {
        return transport.serverChannel();
    }

    public Class<? extends DatagramChannel> datagramChannel() {
        return transport.datagramChannel();
    }

    public Transport transport() {
        return transport;
    }

    @Override
    public void close() {
        if (lag != null) {
            lag.close();
        }
        Future<?> a = acceptors.shutdownGracefully(0, 2, TimeUnit.SECONDS);
        Future<?> w = workers.shutdownGracefully(0, 2, TimeUnit.SECONDS);
        a.awaitUninterruptibly();
        w.awaitUninterruptibly();
    }
}
