package kvgate.memcached.text;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import kvgate.net.RefusalLog;
import org.junit.jupiter.api.Test;

/** The text decoder alone: commands from any split of the bytes, and what it holds while it reads. */
class TextDecoderTest {
    private static final int MAX_ITEM = 1024;

    private final AtomicInteger hangUps = new AtomicInteger();

    private EmbeddedChannel channel() {
        return new EmbeddedChannel(new TextDecoder(MAX_ITEM, 8192).refusals(new RefusalLog("hang-ups",
                hangUps::incrementAndGet)));
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.ISO_8859_1);
    }

    private static List<TextCommand> read(EmbeddedChannel channel) {
        List<TextCommand> commands = new ArrayList<>();
        for (Object read; (read = channel.readInbound()) != null; ) {
            commands.add((TextCommand) read);
        }
        return commands;
    }

    @Test
    void commandsSentByteByByteAreTheCommandsSentWhole() {
        byte[] stream = bytes("set k 1 2 3\r\nabc\r\nget k x\r\nincr k 5 noreply\r\ndelete k\nversion\r\n");
        EmbeddedChannel whole = channel();
        whole.writeInbound(Unpooled.wrappedBuffer(stream));
        List<TextCommand> expected = read(whole);
        EmbeddedChannel split = channel();
        List<TextCommand> actual = new ArrayList<>();
        for (byte b : stream) {
            split.writeInbound(Unpooled.wrappedBuffer(new byte[] {b}));
            actual.addAll(read(split));
        }
        assertEquals(5, expected.size());
        assertEquals(expected.size(), actual.size());
        TextCommand.Store store = (TextCommand.Store) actual.get(0);
        assertArrayEquals(bytes("abc"), store.data());
        assertEquals(1, store.flags());
        assertEquals(2, store.exptime());
        assertEquals(2, ((TextCommand.Retrieve) actual.get(1)).keys().size());
        assertTrue(((TextCommand.Arithmetic) actual.get(2)).noreply());
        assertInstanceOf(TextCommand.Delete.class, actual.get(3));
        assertInstanceOf(TextCommand.Version.class, actual.get(4));
        assertFalse(whole.finish());
        assertFalse(split.finish());
    }

    @Test
    void aValueTooLargeIsSkippedAsItArrivesAndTheConnectionGoesOn() {
        EmbeddedChannel channel = channel();
        channel.writeInbound(Unpooled.wrappedBuffer(bytes("set k 0 0 100000\r\n")));
        TextCommand.TooLarge refused = assertInstanceOf(TextCommand.TooLarge.class, read(channel).get(0));
        assertArrayEquals(bytes("k"), refused.key());
        for (int i = 0; i < 100; i++) {
            channel.writeInbound(Unpooled.wrappedBuffer(new byte[1000]));
            assertTrue(read(channel).isEmpty(), "the value's bytes are no command");
        }
        channel.writeInbound(Unpooled.wrappedBuffer(bytes("\r\nversion\r\n")));
        assertInstanceOf(TextCommand.Version.class, read(channel).get(0));
        assertFalse(channel.finish());
    }

    @Test
    void anUnendedLineOverMemcachedsBoundClosesWithoutAReply() {
        EmbeddedChannel channel = channel();
        channel.writeInbound(Unpooled.wrappedBuffer(bytes("x".repeat(TextDecoder.MAX_LINE))));
        assertTrue(read(channel).isEmpty(), "a line may still end");
        channel.writeInbound(Unpooled.wrappedBuffer(bytes("x")));
        TextCommand.Refused refused = assertInstanceOf(TextCommand.Refused.class, read(channel).get(0));
        assertNull(refused.line());
        assertTrue(refused.close());
        assertEquals(1, hangUps.get(), "counted");
        channel.writeInbound(Unpooled.wrappedBuffer(bytes("\r\nversion\r\n")));
        assertTrue(read(channel).isEmpty(), "nothing is read after it");
        assertFalse(channel.finish());
    }

    @Test
    void aLongMultiGetMayRunToItsOwnBound() {
        EmbeddedChannel channel = channel();
        String keys = " key".repeat(1500); // 6,000 bytes: past the line bound, within the get bound
        channel.writeInbound(Unpooled.wrappedBuffer(bytes("get" + keys + "\r\n")));
        assertEquals(1500, ((TextCommand.Retrieve) read(channel).get(0)).keys().size());
        byte[] line = bytes("get" + keys + "\r\n");
        for (int at = 0; at < line.length; at += 100) {
            channel.writeInbound(Unpooled.wrappedBuffer(line, at, Math.min(100, line.length - at)));
        }
        assertEquals(1500, ((TextCommand.Retrieve) read(channel).get(0)).keys().size(), "sent in pieces");
        channel.writeInbound(Unpooled.wrappedBuffer(bytes("get" + keys + keys)));
        assertTrue(assertInstanceOf(TextCommand.Refused.class, read(channel).get(0)).close(),
                "past its bound, a get line closes the connection too");
        assertFalse(channel.finish());
    }

    @Test
    void aDataBlockWithoutItsEndIsABadDataChunkAndTheNextLineIsACommand() {
        EmbeddedChannel channel = channel();
        channel.writeInbound(Unpooled.wrappedBuffer(bytes("set k 0 0 2\r\nabcd\r\nversion\r\n")));
        List<TextCommand> commands = read(channel);
        assertEquals("CLIENT_ERROR bad data chunk", ((TextCommand.Refused) commands.get(0)).line());
        assertEquals(TextCommand.Refused.error(), commands.get(1), "the block's own end is then an empty line");
        assertInstanceOf(TextCommand.Version.class, commands.get(2));
        assertFalse(channel.finish());
    }
}
