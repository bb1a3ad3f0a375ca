package kvgate.load;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A client on one TCP connection. Replies come in request order, so the requests in flight are a ring, oldest
 * first; each reply is judged against the oldest. Requests written between two flushes go out in one buffer.
 */
final class StreamClient extends Client {
    private final Conversation conversation;
    private final long timeoutNanos;
    private final int[] kinds;
    private final int[] tags;
    private final long[] starts;
    private final long[] sentAt;
    private int head;
    private int count;
    private int nextTag = 1;
    private ByteBuf batch;
    private boolean closing;

    StreamClient(LoadRun run, int index, Conversation conversation) {
        super(run, index);
        this.conversation = conversation;
        int depth = run.options().depth();
        this.timeoutNanos = TimeUnit.MILLISECONDS.toNanos(run.options().timeoutMillis());
        this.kinds = new int[depth];
        this.tags = new int[depth];
        this.starts = new long[depth];
        this.sentAt = new long[depth];
    }

    /** The handler that reads this client's replies; the channel's only one. */
    ByteToMessageDecoder replies() {
        return new Replies();
    }

    @Override
    boolean room() {
        return count < kinds.length && !closing;
    }

    @Override
    int preambleSteps() {
        return conversation.preambleSteps();
    }

    @Override
    void sendPreamble(int step, long now) {
        int tag = nextTag++;
        push(conversation.writePreamble(batch(), step, tag), tag, now, now);
    }

    @Override
    void sendFill(long key, long now) {
        int tag = nextTag++;
        push(conversation.writeFill(batch(), key, tag), tag, now, now);
    }

    @Override
    void sendNext(long start, long now) {
        int tag = nextTag++;
        push(conversation.writeNext(batch(), tag), tag, start, now);
    }

    private ByteBuf batch() {
        if (batch == null) {
            batch = channel.alloc().ioBuffer(4096);
        }
        return batch;
    }

    private void push(int kind, int tag, long start, long now) {
        int slot = (head + count) % kinds.length;
        kinds[slot] = kind;
        tags[slot] = tag;
        starts[slot] = start;
        sentAt[slot] = now;
        count++;
    }

    @Override
    void flush() {
        if (batch != null) {
            ByteBuf out = batch;
            batch = null;
            channel.writeAndFlush(out, channel.voidPromise());
        }
    }

    @Override
    void expire(long now) {
        if (count > 0 && now - sentAt[head] > timeoutNanos) {
            lost(true, "no reply within " + run.options().timeoutMillis() + " ms");
        }
    }

    @Override
    void close() {
        closing = true;
        count = 0;
        if (batch != null) {
            batch.release();
            batch = null;
        }
        channel.close();
    }

    private final class Replies extends ByteToMessageDecoder {
        @Override
        protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
            long now = System.nanoTime();
            while (!closing && in.isReadable()) {
                if (count == 0) {
                    lost(false, "a reply to no request");
                    break;
                }
                Outcome outcome = conversation.read(in, kinds[head], tags[head]);
                if (outcome == null) {
                    return;
                }
                long start = starts[head];
                long sent = sentAt[head];
                head = (head + 1) % kinds.length;
                count--;
                if (outcome == Outcome.BROKEN) {
                    lost(false, conversation.problem());
                    break;
                }
                completed(start, sent, now, outcome, outcome == Outcome.ERROR ? conversation.problem() : null);
            }
            in.skipBytes(in.readableBytes());
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) throws Exception {
            flushIfDirty();
            super.channelReadComplete(ctx);
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) throws Exception {
            super.channelInactive(ctx);
            if (!closing) {
                lost(false, "connection closed by the server");
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            if (!closing) {
                lost(false, cause.toString());
            }
        }
    }
}
