package kvgate.memcached;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoop;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionStage;
import kvgate.dispatch.Dispatcher;
import kvgate.server.ReplyQueue;
import kvgate.spi.Operation;
import kvgate.spi.Result;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One client connection of the memcached binary listener. Frames of one read burst are translated as they come;
 * the operations among them go to the dispatcher together when the burst ends (so a pipelined multi-get reaches the
 * backend as one batch), and replies leave in request order through the {@link ReplyQueue}.
 */
public final class MemcachedConnection extends ChannelInboundHandlerAdapter {
    private static final Logger LOG = LoggerFactory.getLogger(MemcachedConnection.class);

    private record Pending(ReplyQueue.Slot<BinaryResponse> slot, BinaryRequest request, Translation.Answer answer) {
    }

    private final BinaryTranslator translator;
    private final Dispatcher dispatcher;
    private final int maxInFlight;
    private final List<Operation> batch = new ArrayList<>();
    private final List<Pending> batchReplies = new ArrayList<>();
    private ReplyQueue<BinaryResponse> replies;

    public MemcachedConnection(BinaryTranslator translator, Dispatcher dispatcher, int maxInFlight) {
        this.translator = translator;
        this.dispatcher = dispatcher;
        this.maxInFlight = maxInFlight;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) throws Exception {
        replies = new ReplyQueue<>(ctx, maxInFlight);
        super.channelActive(ctx);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object message) {
        if (replies == null || replies.closing()) {
            return; // after a quit or a fatal framing error nothing more is served
        }
        replies.readStarted();
        Translation translation = translator.translate((BinaryFrame) message);
        if (translation instanceof Translation.Answer answer) {
            answer(replies.reserve(), answer);
        } else if (translation instanceof Translation.Answers answers) {
            for (BinaryResponse reply : answers.replies()) {
                replies.complete(replies.reserve(), reply);
            }
        } else if (translation instanceof Translation.Forward forward) {
            batch.add(forward.operation());
            batchReplies.add(new Pending(replies.reserve(), forward.request(), null));
        } else if (translation instanceof Translation.ForwardThenAnswer then) {
            batch.add(then.operation());
            batchReplies.add(new Pending(replies.reserve(), null, then.answer()));
        } else {
            throw new IllegalStateException("unhandled translation " + translation);
        }
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) throws Exception {
        if (!batch.isEmpty()) {
            List<CompletionStage<Result>> results = dispatcher.dispatchAll(List.copyOf(batch));
            EventLoop loop = ctx.channel().eventLoop();
            for (int i = 0; i < results.size(); i++) {
                Pending pending = batchReplies.get(i);
                results.get(i).thenAccept(result -> {
                    if (loop.inEventLoop()) {
                        deliver(pending, result);
                    } else {
                        loop.execute(() -> deliver(pending, result));
                    }
                });
            }
            batch.clear();
            batchReplies.clear();
        }
        if (replies != null) {
            replies.readComplete();
        }
        super.channelReadComplete(ctx);
    }

    private void deliver(Pending pending, Result result) {
        // Replies to requests read before a quit are still written; after the connection is gone they are dropped.
        if (pending.answer() != null) {
            answer(pending.slot(), pending.answer());
        } else {
            replies.complete(pending.slot(), translator.reply(pending.request(), result));
        }
    }

    private void answer(ReplyQueue.Slot<BinaryResponse> slot, Translation.Answer answer) {
        if (answer.close()) {
            replies.completeAndClose(slot, answer.reply());
        } else {
            replies.complete(slot, answer.reply());
        }
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) throws Exception {
        if (replies != null) {
            replies.writabilityChanged();
        }
        super.channelWritabilityChanged(ctx);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        if (replies != null) {
            replies.closed();
        }
        super.channelInactive(ctx);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        LOG.debug("closing memcached connection from {} after an error", ctx.channel().remoteAddress(), cause);
        ctx.close();
    }
}
