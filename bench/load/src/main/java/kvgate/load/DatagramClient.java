package kvgate.load;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.socket.DatagramPacket;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

/**
 * An MPDB client on its own UDP socket, with its own echo sequence from 1. A request occupies the slot of its echo
 * modulo the depth until answered, so the echoes in flight never span more than the depth: with a depth within the
 * gateway's window, none is dropped as beyond it. An unanswered request is sent again (the gateway answers a
 * resend from its cache, never running it twice) until the timeout gives it up.
 */
final class DatagramClient extends Client {
    private static final long RESEND_NANOS = TimeUnit.MILLISECONDS.toNanos(200);

    private final MpdbConversation conversation;
    private final InetSocketAddress server;
    private final long timeoutNanos;
    private final long[] echoes;
    private final int[] kinds;
    private final long[] keys;
    private final long[] starts;
    private final long[] firstSent;
    private final long[] lastSent;
    private final ByteBuf[] payloads;
    private long nextEcho = 1;
    private boolean closing;

    DatagramClient(LoadRun run, int index, MpdbConversation conversation, InetSocketAddress server) {
        super(run, index);
        this.conversation = conversation;
        this.server = server;
        this.timeoutNanos = TimeUnit.MILLISECONDS.toNanos(run.options().timeoutMillis());
        int depth = run.options().depth();
        this.echoes = new long[depth];
        this.kinds = new int[depth];
        this.keys = new long[depth];
        this.starts = new long[depth];
        this.firstSent = new long[depth];
        this.lastSent = new long[depth];
        this.payloads = new ByteBuf[depth];
    }

    SimpleChannelInboundHandler<DatagramPacket> replies() {
        return new Replies();
    }

    private int slot(long echo) {
        return (int) (echo % echoes.length);
    }

    @Override
    boolean room() {
        return !closing && echoes[slot(nextEcho)] == 0;
    }

    @Override
    int preambleSteps() {
        return 0;
    }

    @Override
    void sendPreamble(int step, long now) {
        throw new IllegalStateException("MPDB has no preamble");
    }

    @Override
    void sendFill(long key, long now) {
        long echo = nextEcho++;
        ByteBuf payload = channel.alloc().buffer(64 + run.options().keySize() + run.options().valueSize());
        send(echo, conversation.writeFill(payload, key, echo), payload, now, now);
    }

    @Override
    void sendNext(long start, long now) {
        long echo = nextEcho++;
        ByteBuf payload = channel.alloc().buffer(64 + run.options().keySize() + run.options().valueSize());
        send(echo, conversation.writeNext(payload, echo), payload, start, now);
    }

    private void send(long echo, int kind, ByteBuf payload, long start, long now) {
        int slot = slot(echo);
        echoes[slot] = echo;
        kinds[slot] = kind;
        keys[slot] = conversation.lastKey();
        starts[slot] = start;
        firstSent[slot] = now;
        lastSent[slot] = now;
        payloads[slot] = payload;
        channel.write(new DatagramPacket(payload.retainedDuplicate(), server), channel.voidPromise());
    }

    private void free(int slot) {
        echoes[slot] = 0;
        payloads[slot].release();
        payloads[slot] = null;
    }

    @Override
    void flush() {
        channel.flush();
    }

    @Override
    void expire(long now) {
        boolean resent = false;
        for (int slot = 0; slot < echoes.length && !closing; slot++) {
            if (echoes[slot] == 0) {
                continue;
            }
            if (now - firstSent[slot] > timeoutNanos) {
                long echo = echoes[slot];
                free(slot);
                timedOut("no reply to echo " + echo + " within " + run.options().timeoutMillis() + " ms");
            } else if (now - lastSent[slot] > Math.min(RESEND_NANOS, timeoutNanos / 2)) {
                lastSent[slot] = now;
                channel.write(new DatagramPacket(payloads[slot].retainedDuplicate(), server), channel.voidPromise());
                resent = true;
            }
        }
        if (resent) {
            channel.flush();
        }
    }

    @Override
    void close() {
        closing = true;
        for (int slot = 0; slot < echoes.length; slot++) {
            if (echoes[slot] != 0) {
                free(slot);
            }
        }
        channel.close();
    }

    private final class Replies extends SimpleChannelInboundHandler<DatagramPacket> {
        @Override
        protected void channelRead0(ChannelHandlerContext ctx, DatagramPacket packet) {
            if (closing) {
                return;
            }
            MpdbConversation.Reply reply = conversation.parse(packet.content());
            if (reply == null) {
                run.lost(1, false, "connection " + index + ": " + conversation.problem());
                return;
            }
            int slot = slot(reply.echo());
            if (echoes[slot] != reply.echo()) {
                return; // a second answer to a resent request, or to one given up
            }
            Outcome outcome = conversation.judge(reply, kinds[slot], keys[slot]);
            long start = starts[slot];
            long sent = firstSent[slot];
            free(slot);
            completed(start, sent, System.nanoTime(), outcome,
                    outcome == Outcome.ERROR ? conversation.problem() : null);
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            flushIfDirty();
            ctx.fireChannelReadComplete();
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            // An ICMP refusal and the like: the resend or the timeout takes care of the request. Noted, not counted.
            run.lost(0, false, "connection " + index + ": " + cause);
        }
    }
}
