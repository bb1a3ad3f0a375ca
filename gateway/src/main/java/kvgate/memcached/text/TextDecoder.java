package kvgate.memcached.text;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import kvgate.net.SkippingFrameDecoder;

/**
 * Cuts memcached's text protocol, its meta commands included ({@link MetaCommands} reads their lines), into
 * {@link TextCommand}s, with memcached 1.6's rules:
 * <ul>
 *   <li>a line ends at {@code \n}, a {@code \r} before it dropped; words are separated by spaces only;</li>
 *   <li>a line longer than {@value #MAX_LINE} bytes without its end closes the connection without a reply, unless
 *       it is a {@code get} or {@code gets} (a long multi-get), which may run to {@code maxGetLine} bytes;</li>
 *   <li>a storage command's data block is read only when its line parsed: a refused line leaves the block to be read
 *       as the next command line (memcached's second {@code ERROR}), while a refused {@code ms} line has its block skipped; a block not ending in {@code \r\n} is
 *       {@code CLIENT_ERROR bad data chunk}; a value over {@code maxItemSize} is
 *       {@code SERVER_ERROR object too large for cache} and its block is skipped as it arrives.</li>
 * </ul>
 * The most a connection makes the gateway hold is one line or one value of {@code maxItemSize}.
 */
public final class TextDecoder extends SkippingFrameDecoder {
    /** memcached's bound on a command line that has not ended (bytes). */
    public static final int MAX_LINE = 2048;
    /** memcached's longest key (bytes). */
    public static final int MAX_KEY_LENGTH = 250;
    /** memcached reads this many words of a line (the command's own); further ones end up in the last. */
    private static final int MAX_TOKENS = 24;
    private static final byte[] GET = "get ".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] GETS = "gets ".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] NOREPLY = "noreply".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] HTTP = "HTTP/".getBytes(StandardCharsets.US_ASCII);

    private final int maxItemSize;
    private final int maxGetLine;
    /** A storage command ({@code set}..., or meta's {@code ms}) whose line parsed, waiting for its data block. */
    private TextCommand pending;
    private int pendingLength;
    /** After a line too long nothing more is read from this connection. */
    private boolean failed;
    /** Bytes of the line now arriving already searched for its end, from the reader index. */
    private int searched;

    /**
     * @param maxItemSize the largest value stored
     * @param maxGetLine the longest {@code get} or {@code gets} line (many keys) read before the connection is closed
     */
    public TextDecoder(int maxItemSize, int maxGetLine) {
        this.maxItemSize = maxItemSize;
        this.maxGetLine = Math.max(maxGetLine, MAX_LINE);
    }

    @Override
    protected boolean midRequest() {
        return pending != null || super.midRequest(); // a storage line read, its data block not yet
    }

    /** memcached's own words when it cannot take a value for want of memory. */
    @Override
    protected Object shedFrame(ByteBuf held) {
        return new TextCommand.Refused("SERVER_ERROR out of memory storing object", true, false);
    }

    @Override
    protected void decodeFrame(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        if (failed) {
            in.skipBytes(in.readableBytes());
            return;
        }
        if (pending != null) {
            readData(in, out);
            return;
        }
        int start = in.readerIndex();
        int readable = in.readableBytes();
        int limit = start + Math.min(readable, maxGetLine + 1);
        // A long multi-get arrives over many reads: search only the bytes not searched yet.
        int end = in.indexOf(start + Math.min(searched, limit - start), limit, (byte) '\n');
        if (end < 0) {
            searched = limit - start;
            if (readable > MAX_LINE && (readable > maxGetLine || !startsLongGet(in, start, readable))) {
                failed = true;
                in.skipBytes(readable);
                refused(ctx);
                out.add(new TextCommand.Refused(null, true, false));
            }
            return;
        }
        searched = 0;
        int length = end - start;
        if (length >= 2 && in.getByte(end - 1) == '\r') {
            length--;
        }
        // memcached reads the line as a C string: it ends at a NUL byte.
        int nul = in.indexOf(start, start + length, (byte) 0);
        List<byte[]> words = words(in, start, nul < 0 ? length : nul - start);
        in.readerIndex(end + 1);
        TextCommand command = parse(words, in, out);
        if (command instanceof TextCommand.Refused refused && refused.line() == null) {
            refused(ctx); // an HTTP request
        }
        if (command != null) {
            out.add(command);
        }
    }

    /** Whether a line that has not ended may still be a long multi-get, as memcached lets it be. */
    private static boolean startsLongGet(ByteBuf in, int start, int readable) {
        int at = start;
        while (at < start + readable && in.getByte(at) == ' ') {
            at++;
        }
        return at - start <= 100 && (startsWith(in, at, GET) || startsWith(in, at, GETS));
    }

    private static boolean startsWith(ByteBuf in, int at, byte[] prefix) {
        if (in.writerIndex() - at < prefix.length) {
            return false;
        }
        for (int i = 0; i < prefix.length; i++) {
            if (in.getByte(at + i) != prefix[i]) {
                return false;
            }
        }
        return true;
    }

    private void readData(ByteBuf in, List<Object> out) {
        if (in.readableBytes() < pendingLength + 2) {
            return;
        }
        TextCommand command = pending;
        pending = null;
        byte[] data = new byte[pendingLength];
        in.readBytes(data);
        boolean terminated = in.readByte() == '\r' & in.readByte() == '\n';
        if (command instanceof TextCommand.Meta meta) {
            // A meta command's errors are answered whatever its q flag says.
            out.add(terminated ? new TextCommand.Meta(meta.verb(), meta.key(), meta.flags(), data)
                    : TextCommand.Refused.client("bad data chunk", false));
            return;
        }
        TextCommand.Store store = (TextCommand.Store) command;
        out.add(terminated ? new TextCommand.Store(store.verb(), store.key(), store.flags(), store.exptime(), data,
                store.cas(), store.noreply()) : TextCommand.Refused.client("bad data chunk", store.noreply()));
    }

    /**
     * The words of the line of {@code length} bytes from {@code start} in {@code in}, split at spaces as memcached
     * splits them (runs of spaces make no empty words), each copied out of the buffer once.
     */
    private static List<byte[]> words(ByteBuf in, int start, int length) {
        List<byte[]> words = new ArrayList<>(8);
        int end = start + length;
        int from = start;
        while (from < end) {
            int space = in.indexOf(from, end, (byte) ' ');
            int to = space < 0 ? end : space;
            if (to > from) {
                byte[] word = new byte[to - from];
                in.getBytes(from, word);
                words.add(word);
            }
            from = to + 1;
        }
        return words;
    }

    /**
     * The command a line makes; null for a storage command, whose data block is read next (or skipped, its
     * refusal added to {@code out}).
     */
    private TextCommand parse(List<byte[]> words, ByteBuf in, List<Object> out) {
        // memcached's token count: the words it reads, and one that ends them.
        int tokens = Math.min(words.size(), MAX_TOKENS - 1) + 1;
        if (words.isEmpty() || words.get(0).length < 2) {
            return TextCommand.Refused.error();
        }
        if (words.get(0).length == 2 && words.get(0)[0] == 'm') {
            return meta(words, tokens, in, out);
        }
        CommandWord verb = CommandWord.of(words.get(0));
        if (verb == null) {
            return startsWith(words.get(tokens - 2), HTTP)
                    // An HTTP request sent to the memcached port: memcached hangs up without a word.
                    ? new TextCommand.Refused(null, true, false) : TextCommand.Refused.error();
        }
        boolean noreply = tokens >= 3 && Arrays.equals(words.get(tokens - 2), NOREPLY);
        return switch (verb) {
            case GET, BGET -> tokens < 3 ? TextCommand.Refused.error() : retrieve(words, false, false);
            case GETS -> tokens < 3 ? TextCommand.Refused.error() : retrieve(words, true, false);
            case GAT -> tokens < 3 ? TextCommand.Refused.error() : retrieve(words, false, true);
            case GATS -> tokens < 3 ? TextCommand.Refused.error() : retrieve(words, true, true);
            case SET -> tokens == 6 || tokens == 7 ? store(TextCommand.StoreVerb.SET, words, noreply, in, out)
                    : TextCommand.Refused.error();
            case ADD -> tokens == 6 || tokens == 7 ? store(TextCommand.StoreVerb.ADD, words, noreply, in, out)
                    : TextCommand.Refused.error();
            case REPLACE -> tokens == 6 || tokens == 7
                    ? store(TextCommand.StoreVerb.REPLACE, words, noreply, in, out) : TextCommand.Refused.error();
            case APPEND -> tokens == 6 || tokens == 7
                    ? store(TextCommand.StoreVerb.APPEND, words, noreply, in, out) : TextCommand.Refused.error();
            case PREPEND -> tokens == 6 || tokens == 7
                    ? store(TextCommand.StoreVerb.PREPEND, words, noreply, in, out) : TextCommand.Refused.error();
            case CAS -> tokens == 7 || tokens == 8 ? store(TextCommand.StoreVerb.CAS, words, noreply, in, out)
                    : TextCommand.Refused.error();
            case DELETE -> tokens < 3 || tokens > 5 ? TextCommand.Refused.error() : delete(words, tokens, noreply);
            case INCR, DECR -> tokens == 4 || tokens == 5 ? arithmetic(words, verb == CommandWord.INCR, noreply)
                    : TextCommand.Refused.error();
            case TOUCH -> tokens == 4 || tokens == 5 ? touch(words, noreply) : TextCommand.Refused.error();
            case FLUSH_ALL -> tokens < 2 || tokens > 4 ? TextCommand.Refused.error()
                    : flushAll(words, tokens, noreply);
            case STATS -> new TextCommand.Stats(words.subList(1, words.size()).stream()
                    .map(word -> new String(word, StandardCharsets.ISO_8859_1)).toList());
            case VERSION -> new TextCommand.Version();
            case QUIT -> new TextCommand.Quit();
            case VERBOSITY -> tokens == 3 || tokens == 4 ? verbosity(words, noreply) : TextCommand.Refused.error();
            case SHUTDOWN -> new TextCommand.Refused("ERROR: shutdown not enabled", false, false);
        };
    }

    /** The classic commands, by the word that names them. */
    private enum CommandWord {
        GET, BGET, GETS, GAT, GATS, SET, ADD, REPLACE, APPEND, PREPEND, CAS, DELETE, INCR, DECR, TOUCH, FLUSH_ALL,
        STATS, VERSION, QUIT, VERBOSITY, SHUTDOWN;

        private static final CommandWord[] ALL = values();
        private final byte[] word = name().toLowerCase(Locale.ROOT).getBytes(StandardCharsets.US_ASCII);

        /** The command {@code word} names (case matters, as in memcached), or null; no string is made. */
        static CommandWord of(byte[] word) {
            for (CommandWord verb : ALL) {
                if (Arrays.equals(verb.word, word)) {
                    return verb;
                }
            }
            return null;
        }
    }

    /** A meta command; for {@code ms}, its data block is read next, or skipped when the line was refused. */
    private TextCommand meta(List<byte[]> words, int tokens, ByteBuf in, List<Object> out) {
        MetaCommands.Parsed parsed = MetaCommands.parse((char) words.get(0)[1], words, tokens);
        if (parsed.skipData()) {
            skip(in, parsed.dataLength() + 2L);
            return parsed.command();
        }
        if (!(parsed.command() instanceof TextCommand.Meta meta) || meta.verb() != TextCommand.MetaVerb.SET) {
            return parsed.command();
        }
        if (parsed.dataLength() > maxItemSize) {
            skip(in, parsed.dataLength() + 2L);
            // memcached removes the key's item whatever the mode, and answers whatever q says.
            return new TextCommand.TooLarge(TextCommand.StoreVerb.SET, meta.key(), false);
        }
        pending = meta;
        pendingLength = parsed.dataLength();
        readData(in, out);
        return null;
    }

    private static boolean startsWith(byte[] word, byte[] prefix) {
        return word.length >= prefix.length && Arrays.equals(word, 0, prefix.length, prefix, 0, prefix.length);
    }

    private static TextCommand retrieve(List<byte[]> words, boolean withCas, boolean touch) {
        int exptime = 0;
        int first = 1;
        if (touch) {
            Integer parsed = TextNumbers.int32(words.get(1));
            if (parsed == null) {
                return TextCommand.Refused.client("invalid exptime argument", false);
            }
            exptime = parsed;
            first = 2;
        }
        for (int i = first; i < words.size(); i++) {
            if (words.get(i).length > MAX_KEY_LENGTH) {
                // The whole request fails, the hits of the keys before it included, as memcached answers it.
                return TextCommand.Refused.client("bad command line format", false);
            }
        }
        // The words list is this line's own: its keys are a view of it, not a copy.
        return new TextCommand.Retrieve(words.subList(first, words.size()), withCas, touch, exptime);
    }

    private TextCommand store(TextCommand.StoreVerb verb, List<byte[]> words, boolean noreply, ByteBuf in,
                              List<Object> out) {
        byte[] key = words.get(1);
        if (key.length > MAX_KEY_LENGTH) {
            return TextCommand.Refused.client("bad command line format", noreply);
        }
        Integer flags = TextNumbers.uint32(words.get(2));
        Integer exptime = TextNumbers.int32(words.get(3));
        Integer length = TextNumbers.int32(words.get(4));
        Long cas = verb == TextCommand.StoreVerb.CAS ? TextNumbers.uint64(words.get(5)) : Long.valueOf(0);
        if (flags == null || exptime == null || length == null || cas == null || length < 0
                || length > Integer.MAX_VALUE - 2) {
            return TextCommand.Refused.client("bad command line format", noreply);
        }
        if (length > maxItemSize) {
            skip(in, length + 2L);
            return new TextCommand.TooLarge(verb, key, noreply);
        }
        pending = new TextCommand.Store(verb, key, flags, exptime, null, cas, noreply);
        pendingLength = length;
        readData(in, out);
        return null;
    }

    private static TextCommand delete(List<byte[]> words, int tokens, boolean noreply) {
        if (tokens > 3) {
            // memcached still takes a hold time of 0 from old clients ("delete <key> 0"), and nothing else there.
            boolean holdIsZero = Arrays.equals(words.get(2), new byte[] {'0'});
            boolean valid = tokens == 4 && (holdIsZero || noreply) || tokens == 5 && holdIsZero && noreply;
            if (!valid) {
                return TextCommand.Refused.client("bad command line format.  Usage: delete <key> [noreply]",
                        noreply);
            }
        }
        byte[] key = words.get(1);
        if (key.length > MAX_KEY_LENGTH) {
            return TextCommand.Refused.client("bad command line format", noreply);
        }
        return new TextCommand.Delete(key, noreply);
    }

    private static TextCommand arithmetic(List<byte[]> words, boolean increment, boolean noreply) {
        byte[] key = words.get(1);
        if (key.length > MAX_KEY_LENGTH) {
            return TextCommand.Refused.client("bad command line format", noreply);
        }
        Long delta = TextNumbers.uint64(words.get(2));
        if (delta == null) {
            return TextCommand.Refused.client("invalid numeric delta argument", noreply);
        }
        return new TextCommand.Arithmetic(key, increment, delta, noreply);
    }

    private static TextCommand touch(List<byte[]> words, boolean noreply) {
        byte[] key = words.get(1);
        if (key.length > MAX_KEY_LENGTH) {
            return TextCommand.Refused.client("bad command line format", noreply);
        }
        Integer exptime = TextNumbers.int32(words.get(2));
        if (exptime == null) {
            return TextCommand.Refused.client("invalid exptime argument", noreply);
        }
        return new TextCommand.Touch(key, exptime, noreply);
    }

    private static TextCommand flushAll(List<byte[]> words, int tokens, boolean noreply) {
        int exptime = 0;
        if (tokens != (noreply ? 3 : 2)) {
            Integer parsed = TextNumbers.int32(words.get(1));
            if (parsed == null) {
                return TextCommand.Refused.client("invalid exptime argument", noreply);
            }
            exptime = parsed;
        }
        return new TextCommand.FlushAll(exptime, noreply);
    }

    private static TextCommand verbosity(List<byte[]> words, boolean noreply) {
        return TextNumbers.uint32(words.get(1)) == null ? TextCommand.Refused.client("bad command line format",
                noreply) : new TextCommand.Verbosity(noreply);
    }
}
