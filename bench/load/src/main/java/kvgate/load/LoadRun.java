package kvgate.load;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollDatagramChannel;
import io.netty.channel.epoll.EpollDomainSocketChannel;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioDatagramChannel;
import io.netty.channel.socket.nio.NioDomainSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.channel.unix.DomainSocketAddress;
import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslProvider;
import io.netty.util.concurrent.ScheduledFuture;
import java.io.File;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnixDomainSocketAddress;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAccumulator;
import java.util.concurrent.atomic.LongAdder;
import javax.net.ssl.SSLException;

/**
 * One run: connects the clients, sends their preambles, fills the key space, then loads the target (closed loop or
 * at a fixed rate) through a warm-up and the measured period, and reports what the measured period saw. Clients
 * live on the event loops; this class's methods other than the recording ones run on the caller's thread.
 */
public final class LoadRun {
    private static final int PROBLEMS_KEPT = 5;
    /** Nanoseconds, from 1 ns to a bound no run reaches: a fixed range, so recording never resizes the histogram. */
    private static final long LONGEST_NANOS = TimeUnit.SECONDS.toNanos(100);
    /**
     * Open loop: how far behind its schedule the generator may be and still count as caught up after its warm-up.
     * A request due while its connection's pipeline is full waits for a reply, about a millisecond at most from a
     * server that keeps up; a generator that fell behind in its first, cold second is hundreds behind.
     */
    private static final long CAUGHT_UP_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

    private final LoadOptions options;
    private final Workload workload;
    private final boolean epoll = Epoll.isAvailable();
    /** Each reply's latencies, from its intended time and from its actual send, taken a period at a time. */
    private final Latencies latencies;
    private final LongAdder answered = new LongAdder();
    private final LongAdder reads = new LongAdder();
    private final LongAdder misses = new LongAdder();
    private final LongAdder errors = new LongAdder();
    private final LongAdder timeouts = new LongAdder();
    /** The longest a pacer woke after a batch's intended time: the generator's own lateness, not the server's. */
    private final LongAccumulator lateness = new LongAccumulator(Long::max, 0);
    private final Queue<String> problems = new ConcurrentLinkedQueue<>();
    private final AtomicInteger problemCount = new AtomicInteger();
    private volatile String failure;
    /** The client side of TLS, or null for plain connections. */
    private final SslContext tls;

    /** A client TLS context trusting {@code ca} (PEM): OpenSSL where it loads, as the servers measured use it. */
    private static SslContext tls(String ca) {
        if (ca.isEmpty()) {
            return null;
        }
        try {
            return SslContextBuilder.forClient().trustManager(new File(ca))
                    .sslProvider(OpenSsl.isAvailable() ? SslProvider.OPENSSL : SslProvider.JDK).build();
        } catch (SSLException e) {
            throw new IllegalArgumentException("--tls-ca " + ca + ": " + e.getMessage(), e);
        }
    }

    public LoadRun(LoadOptions options) {
        this.options = options;
        this.tls = tls(options.tlsCa());
        this.workload = new Workload(options);
        this.latencies = new Latencies(options.threads(), LONGEST_NANOS);
    }

    /** Runs with {@code options} and returns the report (of the fill, in fill mode). */
    public static Report run(LoadOptions options) throws Exception {
        EventLoopGroup group = newGroup(options.threads());
        try {
            return new LoadRun(options).run(group);
        } finally {
            group.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }

    /**
     * Runs with {@code options} on the event loops of {@code group}, which it leaves running: the runs of a series
     * share one group. Shut down after each run, the loops' compiled code met the shutdown's branches and was thrown
     * away (about 60 methods made not entrant at the end of the first run), and the next runs were measured while
     * the compiler made it again, on the core the event loops need.
     */
    static Report run(LoadOptions options, EventLoopGroup group) throws Exception {
        return new LoadRun(options).run(group);
    }

    /** The event loops of {@code threads} network threads: epoll where the machine has it. */
    static EventLoopGroup newGroup(int threads) {
        return new MultiThreadIoEventLoopGroup(threads,
                Epoll.isAvailable() ? EpollIoHandler.newFactory() : NioIoHandler.newFactory());
    }

    LoadOptions options() {
        return options;
    }

    // --- recording: called on event loops ---

    /**
     * Counts a reply: its latency and kind, always, the measured period's being what {@link #measure} takes
     * between its reset and its end; an error, as an error in the fill or the warm-up is as wrong as one measured.
     * Replies of the warm-up are counted as those of the measured period are, on purpose: were they not, the JIT
     * would compile the warm-up's path (a branch never taken) and undo it when the measured period begins, and the
     * generator would spend the first moments of the measurement compiling instead of sending.
     */
    void record(long start, long sent, long now, Outcome outcome, String problem) {
        if (!outcome.answered()) {
            errors.increment();
            note(problem);
        } else {
            latencies.record(Math.min(LONGEST_NANOS, Math.max(1, now - start)),
                    Math.min(LONGEST_NANOS, Math.max(1, now - sent)));
            answered.increment();
            if (outcome.read()) {
                reads.increment();
                if (outcome == Outcome.MISS) {
                    misses.increment();
                }
            }
        }
    }

    /** A pacer got to a batch {@code nanos} after its intended time. */
    void late(long nanos) {
        lateness.accumulate(nanos);
    }

    void lost(int requests, boolean timeout, String problem) {
        errors.add(requests);
        if (timeout) {
            timeouts.add(requests);
        }
        note(problem);
    }

    void fail(String problem) {
        failure = problem;
    }

    private void note(String problem) {
        if (problem != null && problemCount.getAndIncrement() < PROBLEMS_KEPT) {
            problems.add(problem);
        }
    }

    // --- the run ---

    private Report run(EventLoopGroup group) throws Exception {
        List<Client> clients = new ArrayList<>();
        List<ScheduledFuture<?>> expiries = new ArrayList<>();
        List<Pacer> pacers = new ArrayList<>();
        try {
            SocketAddress server = options.socket().isEmpty()
                    ? new InetSocketAddress(options.host(), options.port())
                    // Netty's native transport takes its own address type for a socket, NIO the JDK's.
                    : epoll ? new DomainSocketAddress(options.socket()) : UnixDomainSocketAddress.of(options.socket());
            for (int i = 0; i < options.connections(); i++) {
                clients.add(connect(group, server, i));
            }
            Map<EventLoop, List<Client>> byLoop = new LinkedHashMap<>();
            for (Client client : clients) {
                byLoop.computeIfAbsent(client.loop(), loop -> new ArrayList<>()).add(client);
            }
            byLoop.forEach((loop, own) -> expiries.add(loop.scheduleAtFixedRate(() -> {
                long now = System.nanoTime();
                for (Client client : own) {
                    client.expire(now);
                    client.flushIfDirty();
                }
            }, 50, 50, TimeUnit.MILLISECONDS)));

            awaitAll(clients, (client, done) -> client.setup(done), "the preamble");

            boolean fillMode = options.fill() > 0;
            if (fillMode || options.prefill() && options.protocol().storesItems()) {
                long count = fillMode ? options.fill() : options.keys();
                int stride = clients.size();
                Period fill = measure(() -> awaitAll(clients,
                        (client, done) -> client.fill(client.index, stride, count, done), "the fill"));
                if (fillMode) {
                    return report("fill", fill, 0, 0);
                }
            }

            for (Client client : clients) {
                client.loop().execute(options.openLoop() ? client::loadOpenLoop : client::loadClosedLoop);
            }
            if (options.openLoop()) {
                long t0 = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(1);
                byLoop.forEach((loop, own) -> {
                    Pacer pacer = new Pacer(this, loop, own, options.rate() * own.size() / clients.size(),
                            options.batch());
                    pacers.add(pacer);
                    pacer.start(t0);
                });
            }
            // Half-way through the warm-up, a rehearsal of the measured period's start and end, and of the wait
            // for the generator to catch up: their first run loads classes and runs interpreted, on the core the
            // event loops need, and would delay their sends.
            boolean catchingUp = options.openLoop() && options.warmup() > 0;
            sleep(options.warmup() / 2);
            measure(() -> { });
            if (catchingUp) {
                catchUp(byLoop, 0);
            }
            sleep(options.warmup() / 2);
            long catchUpNanos = catchingUp ? catchUp(byLoop, Math.max(options.warmup(), 1)) : 0;
            checkFailure();
            Period measured = measure(() -> sleep(options.seconds()));
            pacers.forEach(Pacer::stop);
            long unsent = 0;
            for (Client client : clients) {
                unsent += client.loop().submit(client::stop).get();
            }
            drain(clients);
            return report(options.openLoop() ? "open" : "closed", measured, unsent, catchUpNanos);
        } finally {
            pacers.forEach(Pacer::stop);
            expiries.forEach(expiry -> expiry.cancel(false));
            for (Client client : clients) {
                client.loop().submit(client::close).syncUninterruptibly();
            }
        }
    }

    private Client connect(EventLoopGroup group, SocketAddress server, int index) throws InterruptedException {
        Bootstrap bootstrap = new Bootstrap().group(group);
        if (options.protocol() == Protocol.MPDB) {
            InetSocketAddress udp = (InetSocketAddress) server; // MPDB never has a --socket
            DatagramClient client = new DatagramClient(this, index, new MpdbConversation(workload, index), udp);
            Channel channel = bootstrap.channel(epoll ? EpollDatagramChannel.class : NioDatagramChannel.class)
                    .option(ChannelOption.SO_RCVBUF, 1 << 20)
                    .handler(client.replies())
                    .bind(new InetSocketAddress(
                            udp.getAddress() instanceof java.net.Inet6Address ? "::1" : "127.0.0.1", 0))
                    .sync().channel();
            client.attach(channel);
            return client;
        }
        StreamClient client = new StreamClient(this, index, conversation(index));
        if (options.socket().isEmpty()) {
            bootstrap.channel(epoll ? EpollSocketChannel.class : NioSocketChannel.class)
                    .option(ChannelOption.TCP_NODELAY, true);
        } else {
            bootstrap.channel(epoll ? EpollDomainSocketChannel.class : NioDomainSocketChannel.class);
        }
        Channel channel = bootstrap.option(ChannelOption.CONNECT_TIMEOUT_MILLIS, options.timeoutMillis())
                .handler(tls == null ? client.replies() : new ChannelInitializer<>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        ch.pipeline().addLast(tls.newHandler(ch.alloc(), options.host(), options.port()))
                                .addLast(client.replies());
                    }
                })
                .connect(server).sync().channel();
        if (tls != null) {
            channel.pipeline().get(SslHandler.class).handshakeFuture().sync();
        }
        client.attach(channel);
        return client;
    }

    private Conversation conversation(int index) {
        return switch (options.protocol()) {
            case BINARY -> new BinaryConversation(workload, index, false);
            case COLLECTIONS -> new BinaryConversation(workload, index, true);
            case COUNTER -> new CounterConversation(workload, index);
            case OKUYAMA -> new OkuyamaConversation(workload, index);
            case OKUYAMA_LISTS -> new OkuyamaStructureConversation(workload, index, false);
            case OKUYAMA_LOCKS -> new OkuyamaStructureConversation(workload, index, true);
            case MPDB -> throw new IllegalStateException("MPDB runs over datagrams");
        };
    }

    private interface Step {
        void start(Client client, Runnable done);
    }

    /** Starts {@code step} on every client (on its loop) and waits until each has finished it or died. */
    private void awaitAll(List<Client> clients, Step step, String what) throws InterruptedException {
        CountDownLatch latch = new CountDownLatch(clients.size());
        for (Client client : clients) {
            client.loop().execute(() -> step.start(client, latch::countDown));
        }
        while (!latch.await(100, TimeUnit.MILLISECONDS)) {
            checkFailure();
        }
        checkFailure();
        if (clients.stream().noneMatch(Client::alive)) {
            throw new IllegalStateException("every connection failed during " + what + ": " + problems);
        }
    }

    /** Waits until no request is in flight, at most the timeout. */
    private void drain(List<Client> clients) throws InterruptedException, ExecutionException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(options.timeoutMillis());
        for (Client client : clients) {
            while (client.loop().submit(client::inFlight).get() > 0 && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
        }
    }

    /**
     * Open loop, after the warm-up: waits until no request due more than {@link #CAUGHT_UP_NANOS} ago is still
     * unsent, for at most {@code limitSeconds}, and returns how long it waited. A generator starts cold: in its first
     * second or two it can fall behind its rate, and it then catches up by sending faster than the rate, each
     * connection's requests queued behind its previous ones. Measured from the end of the warm-up, that catching up
     * would count the warm-up's late requests, and the queues they make, as the server's latency: p99s of hundreds
     * of milliseconds in a run whose server answered every request within a few (as the packets on the wire show).
     * A server that cannot keep up with the rate is measured anyway once the limit has passed.
     */
    private long catchUp(Map<EventLoop, List<Client>> byLoop, double limitSeconds) throws Exception {
        long start = System.nanoTime();
        long limit = start + (long) (limitSeconds * 1e9);
        while (true) {
            long oldest = Long.MAX_VALUE;
            // One question to each loop about all of its clients: a question per client was a switch between this
            // thread and the loop's per client, every 5 ms, on the core the loop needs.
            for (Map.Entry<EventLoop, List<Client>> loop : byLoop.entrySet()) {
                oldest = Math.min(oldest, loop.getKey().submit(() -> {
                    long loopOldest = Long.MAX_VALUE;
                    for (Client client : loop.getValue()) {
                        loopOldest = Math.min(loopOldest, client.oldestUnsent());
                    }
                    return loopOldest;
                }).get());
            }
            long now = System.nanoTime();
            if (oldest == Long.MAX_VALUE || now - oldest <= CAUGHT_UP_NANOS || now >= limit) {
                return now - start;
            }
            Thread.sleep(5);
        }
    }

    private void checkFailure() {
        if (failure != null) {
            throw new IllegalStateException(failure);
        }
    }

    private void reset() {
        latencies.reset();
        lateness.reset();
        answered.reset();
        reads.reset();
        misses.reset();
    }

    /** What a measured period saw: its time and CPU, and the replies counted in it. */
    private record Period(Usage.Measured usage, Latencies.Period latencies, long answered, long reads, long misses,
                          long lateNanos) {
    }

    /** Something a period waits for: the fill, or the measured time. */
    private interface During {
        void run() throws InterruptedException;
    }

    /** Starts counting afresh, waits for {@code during}, and takes what the period saw. */
    private Period measure(During during) throws InterruptedException {
        reset();
        Usage usage = new Usage();
        during.run();
        Usage.Measured measured = usage.end();
        return new Period(measured, latencies.interval(), answered.sum(), reads.sum(), misses.sum(), lateness.get());
    }

    private Report report(String mode, Period period, long unsent, long catchUpNanos) {
        Usage.Measured usage = period.usage();
        return Report.of(options, mode, epoll ? "epoll" : "nio", usage.fromMillis(), usage.seconds(),
                period.answered(), period.reads(),
                period.misses(), errors.sum(), timeouts.sum(), unsent, period.latencies().fromIntended(),
                period.latencies().fromSend(),
                period.lateNanos(),
                catchUpNanos, usage.cpu(),
                usage.watched(), usage.machine(), usage.interrupts(), List.copyOf(problems));
    }

    /** Time and CPU from the moment it is made: the generator's own, the watched processes', the machine's. */
    private final class Usage {
        /** {@code fromMillis}: when the period began, by the wall clock, for telling it from other events. */
        record Measured(long fromMillis, double seconds, double cpu, List<Double> watched, double machine,
                        double interrupts) {
        }

        private final long fromMillis = System.currentTimeMillis();
        private final long start = System.nanoTime();
        private final double cpu = cpuNanos();
        private final long[] watched = options.watch().stream().mapToLong(ProcCpu::process).toArray();
        private final ProcCpu.MachineTicks machine = ProcCpu.machine();

        Measured end() {
            double seconds = (System.nanoTime() - start) / 1e9;
            List<Double> watchedCpu = new ArrayList<>();
            for (int i = 0; i < watched.length; i++) {
                watchedCpu.add(ProcCpu.percent(watched[i], ProcCpu.process(options.watch().get(i)), seconds));
            }
            ProcCpu.MachineTicks now = ProcCpu.machine();
            return new Measured(fromMillis, seconds, (cpuNanos() - cpu) / 1e9 / seconds * 100, watchedCpu,
                    ProcCpu.percent(machine.processes(), now.processes(), seconds),
                    ProcCpu.percent(machine.interrupts(), now.interrupts(), seconds));
        }
    }

    private static void sleep(double seconds) throws InterruptedException {
        Thread.sleep((long) (seconds * 1000));
    }

    private static double cpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }
}
