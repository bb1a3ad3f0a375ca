package kvgate.net;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.util.ReferenceCountUtil;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Function;
import kvgate.dispatch.OperationStream;
import kvgate.dispatch.Stages;
import kvgate.spi.Operation;
import kvgate.spi.Result;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One client connection of any protocol, last in its pipeline. Frames of one read burst are translated as they
 * come; the operations among them go to the dispatcher together when the burst ends (so a pipelined multi-get
 * reaches the backend as one batch), and replies leave in request order through the {@link ReplyQueue}. While an
 * {@link Translation.Await} is under way, later frames are held (and reading paused) until it is done.
 *
 * <p>A client that shuts its side of the connection down after its last request (a script piping requests through
 * {@code nc}, a client that half-closes to say it is done) still gets every reply: the connection closes once the
 * requests read before the end are all answered and written, or {@link #DRAIN_SECONDS} after the end at the latest.
 *
 * @param <F> the protocol's request frame, which the decoder before it in the pipeline makes
 * @param <R> the protocol's reply message, which {@code encoder} writes
 */
public final class ProtocolConnection<F, R> extends ChannelInboundHandlerAdapter {
    private static final Logger LOG = LoggerFactory.getLogger(ProtocolConnection.class);
    /** The longest a connection stays open after its client's input ended, its replies unwritten or unread. */
    private static final long DRAIN_SECONDS = 30;

    private final String protocol;
    private final Class<F> frames;
    private final FrameTranslator<F, R> translator;
    private final ReplyEncoder<R> encoder;
    private final OperationStream stream;
    private final int maxInFlight;
    /**
     * The burst's operations, and for each its reply's position and how its result becomes the answer: plain arrays
     * reused from burst to burst, as they are filled once per request.
     */
    private Operation[] batch = new Operation[16];
    private long[] batchPositions = new long[16];
    private Function<Result, Translation.Answer<R>>[] batchReplies = newReplies(16);
    private int batchSize;
    /** Frames read while an {@link Translation.Await} runs; at most one read burst, as reading is paused. */
    private final ArrayDeque<F> held = new ArrayDeque<>();
    private boolean awaiting;
    private ChannelHandlerContext ctx;
    private ReplyQueue<R> replies;

    /**
     * @param frames the class of the frames the decoder before it makes
     * @param stream where the operations go
     */
    public ProtocolConnection(String protocol, Class<F> frames, FrameTranslator<F, R> translator,
                              ReplyEncoder<R> encoder, OperationStream stream, int maxInFlight) {
        this.protocol = protocol;
        this.frames = frames;
        this.translator = translator;
        this.encoder = encoder;
        this.stream = stream;
        this.maxInFlight = maxInFlight;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) throws Exception {
        this.ctx = ctx;
        replies = new ReplyQueue<>(ctx, encoder, maxInFlight);
        // The end of the client's input is an event rather than the connection's close, so replies still being
        // worked on are not dropped (see closeIfAnswered).
        ctx.channel().config().setOption(ChannelOption.ALLOW_HALF_CLOSURE, true);
        super.channelActive(ctx);
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object event) throws Exception {
        if (event == ChannelInputShutdownEvent.INSTANCE && replies != null) {
            replies.endInput();
            // A client that ended its input and never reads its replies must not hold the connection (and, for the
            // counter protocol, its holdings) for ever: it closes at the latest after this.
            ctx.executor().schedule(() -> ctx.close(), DRAIN_SECONDS, TimeUnit.SECONDS);
            closeIfAnswered();
        }
        super.userEventTriggered(ctx, event);
    }

    /** After the client's input ended: closes the connection once every request read is answered and written. */
    private void closeIfAnswered() {
        if (replies != null && replies.inputEnded() && !awaiting && held.isEmpty() && batchSize == 0
                && !replies.closing() && replies.idle()) {
            replies.closeAfterWrites();
        }
    }

    /** Fills a reply's position, then closes the connection if that was the last one owed to a finished client. */
    private void complete(long position, Translation.Answer<R> answer) {
        replies.complete(position, answer);
        closeIfAnswered();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object message) {
        if (replies == null || replies.closing()) {
            ReferenceCountUtil.release(message);
            return; // after a quit or a fatal framing error nothing more is served
        }
        F frame = frames.cast(message);
        replies.readStarted();
        if (awaiting) {
            held.add(frame);
            return;
        }
        serve(frame);
    }

    private void serve(F frame) {
        Translation<R> translation = translator.translate(frame);
        if (translation instanceof Translation.Answer<R> answer) {
            complete(replies.reserve(), answer);
        } else if (translation instanceof Translation.Forward<R> forward) {
            batched(replies.reserve(), forward.operation(), forward.reply());
        } else if (translation instanceof Translation.ForwardAll<R> all) {
            long position = replies.reserve();
            if (all.operations().isEmpty()) {
                complete(position, all.reply().apply(List.of()));
                return;
            }
            Gathered<R> gathered = new Gathered<>(all);
            for (int i = 0; i < all.operations().size(); i++) {
                batched(position, all.operations().get(i), gathered.part(i));
            }
        } else if (translation instanceof Translation.Await<R> await) {
            dispatchBatch();
            long position = replies.reserve();
            awaiting = true;
            replies.pause(true);
            onLoop(await.work().apply(stream), answer -> {
                complete(position, answer);
                awaiting = false;
                replies.pause(false);
                resumeHeld();
                closeIfAnswered();
            });
        } else {
            throw new IllegalStateException("unhandled translation " + translation);
        }
    }

    /** Adds an operation to the burst's batch; {@code reply} makes its answer, or null while that is not whole. */
    private void batched(long position, Operation operation, Function<Result, Translation.Answer<R>> reply) {
        if (batchSize == batch.length) {
            batch = Arrays.copyOf(batch, batchSize * 2);
            batchPositions = Arrays.copyOf(batchPositions, batchSize * 2);
            batchReplies = Arrays.copyOf(batchReplies, batchSize * 2);
        }
        batchPositions[batchSize] = position;
        batch[batchSize] = operation;
        batchReplies[batchSize++] = reply;
    }

    /**
     * The results of a {@link Translation.ForwardAll}'s operations as they come, on the event loop; the answer is made
     * from them once the last has come.
     */
    private static final class Gathered<R> {
        private final Translation.ForwardAll<R> request;
        private final Result[] results;
        private int missing;

        Gathered(Translation.ForwardAll<R> request) {
            this.request = request;
            this.results = new Result[request.operations().size()];
            this.missing = results.length;
        }

        Function<Result, Translation.Answer<R>> part(int index) {
            return result -> {
                results[index] = result;
                return --missing == 0 ? request.reply().apply(Arrays.asList(results)) : null;
            };
        }
    }

    /** Serves the frames held during an await, as a read burst of their own. */
    private void resumeHeld() {
        if (held.isEmpty() || replies.closing()) {
            return;
        }
        replies.readStarted();
        while (!awaiting && !held.isEmpty() && !replies.closing()) {
            serve(held.poll());
        }
        dispatchBatch();
        replies.readComplete();
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) throws Exception {
        dispatchBatch();
        if (replies != null) {
            replies.readComplete();
        }
        super.channelReadComplete(ctx);
    }

    private void dispatchBatch() {
        if (batchSize == 0) {
            return;
        }
        int size = batchSize;
        // One copy, which the backends may keep; nothing changes a batch's list.
        List<Operation> operations = size == 1 ? List.of(batch[0]) : Arrays.asList(Arrays.copyOf(batch, size));
        List<CompletionStage<Result>> results = stream.dispatchAll(operations);
        for (int i = 0; i < size; i++) {
            long position = batchPositions[i];
            Function<Result, Translation.Answer<R>> reply = batchReplies[i];
            batch[i] = null;
            batchReplies[i] = null;
            Result now = Stages.valueNow(results.get(i));
            if (now != null) {
                completeWith(position, reply.apply(now)); // most results of a store in memory: no callback
            } else {
                onLoop(results.get(i), result -> completeWith(position, reply.apply(result)));
            }
        }
        batchSize = 0;
        closeIfAnswered();
    }

    /** Fills a reply's position with {@code answer}; null is an answer still gathering its parts. */
    private void completeWith(long position, Translation.Answer<R> answer) {
        if (answer != null) {
            complete(position, answer);
        }
    }

    @SuppressWarnings("unchecked")
    private static <R> Function<Result, Translation.Answer<R>>[] newReplies(int size) {
        return (Function<Result, Translation.Answer<R>>[]) new Function<?, ?>[size];
    }

    /** Runs {@code then} on the connection's event loop when {@code stage} completes. */
    private <T> void onLoop(CompletionStage<T> stage, Consumer<T> then) {
        EventLoop loop = ctx.channel().eventLoop();
        T now = Stages.valueNow(stage);
        if (now != null && loop.inEventLoop()) {
            then.accept(now);
            return;
        }
        stage.thenAccept(value -> {
            if (loop.inEventLoop()) {
                then.accept(value);
            } else {
                loop.execute(() -> then.accept(value));
            }
        });
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
        held.forEach(ReferenceCountUtil::release);
        held.clear();
        if (replies != null) {
            replies.closed();
            List<Operation> release = translator.closed();
            if (!release.isEmpty()) {
                stream.dispatchAll(release);
            }
        }
        super.channelInactive(ctx);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        LOG.debug("closing {} connection from {} after an error", protocol, ctx.channel().remoteAddress(), cause);
        ctx.close();
    }
}
