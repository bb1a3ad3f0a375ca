package kvgate.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The reply queue on a channel of its own: order, silence, growth of its ring, closing, and nothing leaked. */
class ReplyQueueTest {

    /** Replies are strings, written as their bytes and a newline. */
    private static final ReplyEncoder<String> LINES = new ReplyEncoder<>() {
        @Override
        public int size(String reply) {
            return reply.length() + 1;
        }

        @Override
        public void encode(String reply, ByteBuf out) {
            out.writeCharSequence(reply + "\n", StandardCharsets.US_ASCII);
        }
    };

    private final EmbeddedChannel channel = new EmbeddedChannel(new ChannelInboundHandlerAdapter());
    private final ReplyQueue<String> queue = new ReplyQueue<>(context(), LINES, 10_000);

    private ChannelHandlerContext context() {
        return channel.pipeline().firstContext();
    }

    /** Everything the queue wrote to the channel so far, as text. */
    private String written() {
        channel.runPendingTasks();
        StringBuilder text = new StringBuilder();
        for (ByteBuf buffer = channel.readOutbound(); buffer != null; buffer = channel.readOutbound()) {
            text.append(buffer.toString(StandardCharsets.US_ASCII));
            buffer.release();
        }
        return text.toString();
    }

    @Test
    void repliesLeaveInRequestOrderWhateverOrderTheyCompleteIn() {
        // More positions than the ring starts with, completed last first: it grows with the pending ones in place.
        int requests = 100;
        List<Long> positions = new ArrayList<>();
        for (int i = 0; i < requests; i++) {
            positions.add(queue.reserve());
        }
        StringBuilder expected = new StringBuilder();
        for (int i = 0; i < requests; i++) {
            expected.append("reply ").append(i).append('\n');
        }
        for (int i = requests - 1; i >= 1; i--) {
            queue.complete(positions.get(i), Translation.answer("reply " + i));
        }
        assertEquals("", written(), "nothing leaves while the first reply is missing");
        queue.complete(positions.get(0), Translation.answer("reply 0"));
        assertEquals(expected.toString(), written());
    }

    @Test
    void aRingThatWrapsAroundKeepsTheOrder() {
        // Positions are reused modulo the ring's length: reserve and complete in waves, some pending across waves.
        StringBuilder expected = new StringBuilder();
        long held = queue.reserve();
        expected.append("held\n");
        for (int wave = 0; wave < 5; wave++) {
            List<Long> positions = new ArrayList<>();
            for (int i = 0; i < 11; i++) {
                positions.add(queue.reserve());
                expected.append("w").append(wave).append('.').append(i).append('\n');
            }
            for (int i = 0; i < positions.size(); i++) {
                queue.complete(positions.get(i), Translation.answer("w" + wave + "." + i));
            }
        }
        assertEquals("", written());
        queue.complete(held, Translation.answer("held"));
        assertEquals(expected.toString(), written());
    }

    @Test
    void silentAndMultipleAnswersTakeOnePositionEach() {
        long first = queue.reserve();
        long second = queue.reserve();
        long third = queue.reserve();
        queue.complete(third, Translation.answer("c"));
        queue.complete(second, Translation.answers(List.of("b1", "b2", "b3")));
        queue.complete(first, Translation.answer(null));
        assertEquals("b1\nb2\nb3\nc\n", written());
    }

    @Test
    void anAnswerThatClosesIsTheLastWrittenAndLaterAnswersAreDropped() {
        long first = queue.reserve();
        long quit = queue.reserve();
        long after = queue.reserve();
        queue.complete(after, Translation.answer("never"));
        queue.complete(quit, Translation.answerAndClose("bye"));
        assertTrue(queue.closing());
        queue.complete(first, Translation.answer("first"));
        assertEquals("first\nbye\n", written());
        assertFalse(channel.isOpen(), "the channel closes once the closing answer is written");
    }

    @Test
    void answersThatArriveAfterTheConnectionIsGoneAreDropped() {
        long first = queue.reserve();
        long second = queue.reserve();
        queue.complete(second, Translation.answer("second"));
        queue.closed();
        queue.complete(first, Translation.answer("first"));
        assertEquals("", written());
        assertFalse(channel.finish(), "nothing is left in the channel");
    }
}
