package kvgate.mpdb;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Expiry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.socket.DatagramPacket;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import kvgate.dispatch.OperationStream;
import kvgate.metrics.GatewayMetrics;
import kvgate.mpdb.MpdbDatagram.Invalid;
import kvgate.mpdb.MpdbDatagram.Numbered;
import kvgate.mpdb.MpdbDatagram.Request;
import kvgate.mpdb.MpdbDatagram.Unreadable;
import kvgate.net.AccessList;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The MPDB listener's one handler: decodes each datagram, puts it in its client's order ({@link EchoWindow}), runs
 * what is due through the {@link MpdbTranslator} and sends the replies to the sender's address. Everything happens
 * on the listener's event loop, so the client table needs no locks.
 *
 * <p>Clients are known by source address. Their state is bounded in two ways: it expires after
 * {@code clientExpiry} without a datagram that was taken or answered (a datagram dropped as stale, beyond the
 * window or a duplicate does not keep it: a client whose every datagram is dropped waits for something that will
 * not come, and starts afresh once forgotten), and the state of all clients together (buffered requests, cached
 * replies, bookkeeping) weighs at most {@code clientMemory} bytes, the least used clients being forgotten first; so a
 * flood of datagrams from forged addresses costs a bounded amount of memory. A forgotten client simply starts
 * afresh with its next datagram; what it had buffered is not run.
 */
public final class MpdbDatagramHandler extends SimpleChannelInboundHandler<DatagramPacket> {
    public static final String PROTOCOL = "mpdb";
    private static final Logger LOG = LoggerFactory.getLogger(MpdbDatagramHandler.class);
    /**
     * Bytes a decoded request holds per pair or key beyond its bytes in the datagram (the key's String and its
     * array, the value's object, the map's entry): a datagram of 64 KiB with 12,900 short keys held about 1.9 MB.
     */
    private static final int HELD_PER_ENTRY = 160;

    private final MpdbTranslator translator;
    /** Where the requests' operations go. */
    private final OperationStream stream;
    private final GatewayMetrics metrics;
    private final int maxDatagram;
    private final int window;
    private final long serverTimeoutMillis;
    private final Cache<InetSocketAddress, Client> clients;
    private final AccessList allowed;
    private final ReplyBudget replies;
    private ScheduledFuture<?> cleaner;

    /** One client's window and its server timer. */
    private static final class Client {
        final InetSocketAddress address;
        final EchoWindow<Numbered> window;
        ScheduledFuture<?> timer;
        /** The tag the timer waits for. */
        long timerFor;

        Client(InetSocketAddress address, int window) {
            this.address = address;
            this.window = new EchoWindow<>(window);
        }

        void cancelTimer() {
            if (timer != null) {
                timer.cancel(false);
                timer = null;
            }
        }
    }

    /**
     * @param stream where the requests' operations go
     * @param maxDatagram the longest datagram taken, and the longest reply sent
     * @param window how many tags ahead of the last one run are buffered, and how many replies are kept for resends
     * @param serverTimeoutMillis how long a missing tag holds up the ones after it
     * @param allowed the source networks whose datagrams are taken; others are dropped unanswered
     * @param replies what may be sent to each source ({@link ReplyBudget})
     */
    public MpdbDatagramHandler(MpdbTranslator translator, OperationStream stream, GatewayMetrics metrics,
                               int maxDatagram, int window, long serverTimeoutMillis, Duration clientExpiry,
                               long clientMemory, AccessList allowed, ReplyBudget replies) {
        this.allowed = allowed;
        this.replies = replies;
        this.translator = translator;
        this.stream = stream;
        this.metrics = metrics;
        this.maxDatagram = maxDatagram;
        this.window = window;
        this.serverTimeoutMillis = serverTimeoutMillis;
        this.clients = Caffeine.newBuilder()
                .executor(Runnable::run) // maintenance on the event loop that uses the table
                .expireAfter(new Expiry<InetSocketAddress, Client>() {
                    // Refreshed when a datagram is taken or answered, or a request finishes (both put the client
                    // again), never by a lookup alone.
                    @Override
                    public long expireAfterCreate(InetSocketAddress address, Client client, long now) {
                        return clientExpiry.toNanos();
                    }

                    @Override
                    public long expireAfterUpdate(InetSocketAddress address, Client client, long now, long left) {
                        return clientExpiry.toNanos();
                    }

                    @Override
                    public long expireAfterRead(InetSocketAddress address, Client client, long now, long left) {
                        return left;
                    }
                })
                .maximumWeight(clientMemory)
                .<InetSocketAddress, Client>weigher((address, client) -> client.window.weight())
                .<InetSocketAddress, Client>removalListener((address, client, cause) -> {
                    if (cause.wasEvicted() && client != null) {
                        client.cancelTimer();
                    }
                })
                .build();
    }

    /** Clients with state held now (expired ones go within a second). */
    public long clients() {
        return clients.estimatedSize();
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) throws Exception {
        // Expired clients' timers are cancelled even when no datagram comes to trigger the cache's maintenance.
        cleaner = ctx.executor().scheduleWithFixedDelay(clients::cleanUp, 1, 1, TimeUnit.SECONDS);
        super.channelActive(ctx);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        if (cleaner != null) {
            cleaner.cancel(false);
        }
        clients.asMap().values().forEach(Client::cancelTimer);
        super.channelInactive(ctx);
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, DatagramPacket packet) {
        if (!allowed.allows(packet.sender())) {
            metrics.datagramDropped(PROTOCOL, "access_list");
            return;
        }
        ByteBuf content = packet.content();
        int length = content.readableBytes();
        replies.received(packet.sender().getAddress(), length);
        boolean oversized = length > maxDatagram;
        byte[] bytes = new byte[Math.min(length, maxDatagram + 1)];
        content.getBytes(content.readerIndex(), bytes);
        MpdbDatagram datagram = MpdbCodec.decode(bytes, oversized, maxDatagram);
        if (datagram instanceof Unreadable unreadable) {
            metrics.datagramDropped(PROTOCOL, unreadable.reason());
            return;
        }
        Numbered numbered = (Numbered) datagram;
        InetSocketAddress sender = packet.sender();
        if (numbered.echo() < 1) {
            // A tag the order cannot hold: answered at once, outside it.
            send(ctx, sender, MpdbCodec.encode(MpdbReply.error(numbered, ((Invalid) numbered).error())));
            return;
        }
        Client client = clients.get(sender, address -> new Client(address, window));
        EchoWindow.Arrival arrival = client.window.offer(numbered.echo(), numbered, held(numbered, bytes.length),
                Arrays.hashCode(bytes));
        switch (arrival) {
            case ACCEPTED -> drive(ctx, client);
            case REPLAY -> {
                metrics.datagramReplayed(PROTOCOL);
                send(ctx, sender, client.window.cachedReply(numbered.echo()));
            }
            default -> {
                // Dropped (duplicate, stale, beyond_window): counted under that reason, and the client's state
                // neither changed nor kept alive by it.
                metrics.datagramDropped(PROTOCOL, arrival.name().toLowerCase(Locale.ROOT));
                return;
            }
        }
        clients.put(sender, client); // its weight has changed, and its expiry starts again
    }

    /** What a decoded datagram holds in memory while it waits its turn, in bytes: more than the datagram. */
    static int held(Numbered numbered, int length) {
        if (numbered instanceof Request request) {
            int entries = (request.data() == null ? 0 : request.data().size())
                    + (request.keys() == null ? 0 : request.keys().size());
            return length + HELD_PER_ENTRY * entries;
        }
        return length;
    }

    /** Runs the client's messages that are due, one at a time, then sets its timer for a gap. */
    private void drive(ChannelHandlerContext ctx, Client client) {
        EchoWindow.Turn<Numbered> turn;
        while ((turn = client.window.take()) != null) {
            CompletableFuture<MpdbReply> reply = run(turn.message()).toCompletableFuture();
            if (reply.isDone()) {
                finish(ctx, client, turn, reply.join());
                continue;
            }
            EchoWindow.Turn<Numbered> running = turn;
            reply.whenComplete((done, error) -> ctx.executor().execute(() -> {
                finish(ctx, client, running, done != null ? done : failed(running.message(), error));
                if (clients.getIfPresent(client.address) != client) {
                    // Forgotten while the request ran: the state in the table now, if any, is the client's from
                    // here on, and this one's buffered requests must not run beside it.
                    return;
                }
                drive(ctx, client);
                clients.put(client.address, client);
            }));
            return;
        }
        long gap = client.window.gap();
        if (gap == 0) {
            client.cancelTimer();
        } else if (client.timer == null || client.timerFor != gap) {
            client.cancelTimer();
            client.timerFor = gap;
            client.timer = ctx.executor().schedule(() -> {
                client.timer = null;
                if (client.window.gap() == gap) {
                    metrics.datagramGapSkipped(PROTOCOL);
                    client.window.skipGap();
                }
                drive(ctx, client);
            }, serverTimeoutMillis, TimeUnit.MILLISECONDS);
        }
    }

    private CompletableFuture<MpdbReply> run(Numbered message) {
        if (message instanceof Invalid invalid) {
            return CompletableFuture.completedFuture(MpdbReply.error(invalid, invalid.error()));
        }
        try {
            return translator.execute((Request) message, stream).toCompletableFuture();
        } catch (RuntimeException e) {
            return CompletableFuture.completedFuture(failed(message, e));
        }
    }

    private static MpdbReply failed(Numbered message, Throwable error) {
        LOG.error("MPDB request {} failed", message, error);
        return MpdbReply.error(message, "internal error");
    }

    private void finish(ChannelHandlerContext ctx, Client client, EchoWindow.Turn<Numbered> turn, MpdbReply reply) {
        byte[] encoded = MpdbCodec.encode(reply);
        if (encoded.length > maxDatagram) {
            encoded = MpdbCodec.encode(MpdbReply.error(turn.message(), "the reply would be " + encoded.length
                    + " bytes, more than the " + maxDatagram + " a datagram may hold here"));
        }
        client.window.finished(turn, encoded);
        send(ctx, client.address, encoded);
    }

    /** Sends a reply unless its source's {@link ReplyBudget} is spent; then it is counted and not sent. */
    private void send(ChannelHandlerContext ctx, InetSocketAddress to, byte[] datagram) {
        if (!replies.mayReply(to.getAddress(), datagram.length)) {
            metrics.datagramDropped(PROTOCOL, "reply_budget");
            return;
        }
        ctx.writeAndFlush(new DatagramPacket(Unpooled.wrappedBuffer(datagram), to));
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        // One datagram's trouble (or an ICMP error surfacing on the socket) must not stop the listener.
        LOG.warn("MPDB listener: {}", cause.toString());
    }
}
