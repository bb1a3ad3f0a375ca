package kvgate.load;

import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.SplittableRandom;

/**
 * okuyama text lines: setValue (1) for writes; for reads getValue (2), and one read in ten a getMultiValue (22) of
 * {@code multiKeys} keys, which is one operation answered by one line per key and END. Keys and values travel in
 * Base64; every reply line is compared with the one expected (a hit must carry the value stored).
 */
final class OkuyamaConversation implements Conversation {
    private static final int SET = 1;
    private static final int GET = 2;
    private static final int MULTI = 22;
    private static final int MAX_LINE = 16 << 20;

    private final Workload workload;
    private final SplittableRandom random;
    private final Base64.Encoder base64 = Base64.getEncoder();
    private final byte[] setOk = ascii("1,true,OK");
    private final byte[] getHit;
    private final byte[] getMiss = ascii("2,false,");
    private final byte[] multiHit;
    private final byte[] multiMiss = ascii("22,false,");
    private final byte[] end = ascii("END");
    private final byte[] value;
    private String problem;

    OkuyamaConversation(Workload workload, int connection) {
        this.workload = workload;
        this.random = workload.random(connection);
        String encoded = base64.encodeToString(workload.value());
        this.value = ascii(encoded);
        this.getHit = ascii("2,true," + encoded);
        this.multiHit = ascii("22,true," + encoded);
    }

    private static byte[] ascii(String text) {
        return text.getBytes(StandardCharsets.US_ASCII);
    }

    @Override
    public int writeFill(ByteBuf out, long key, int tag) {
        return write(out, SET, key);
    }

    @Override
    public int writeNext(ByteBuf out, int tag) {
        int kind = !workload.nextIsRead(random) ? SET : random.nextInt(10) == 0 ? MULTI : GET;
        return write(out, kind, workload.randomKey(random));
    }

    private int write(ByteBuf out, int kind, long key) {
        out.writeBytes(ascii(Integer.toString(kind))).writeByte(',');
        out.writeBytes(base64.encode(workload.keys().bytes(key)));
        if (kind == SET) {
            out.writeBytes(ascii(",(B),0,")).writeBytes(value);
        } else if (kind == MULTI) {
            for (int i = 1; i < workload.options().multiKeys(); i++) {
                out.writeByte(',').writeBytes(base64.encode(workload.keys().bytes(workload.randomKey(random))));
            }
        }
        out.writeByte('\n');
        return kind;
    }

    @Override
    public Outcome read(ByteBuf in, int kind, int tag) {
        int lines = kind == MULTI ? workload.options().multiKeys() + 1 : 1;
        int start = in.readerIndex();
        int limit = in.writerIndex();
        int[] ends = new int[lines];
        int from = start;
        for (int i = 0; i < lines; i++) {
            int newline = in.indexOf(from, limit, (byte) '\n');
            if (newline < 0) {
                if (limit - start > MAX_LINE) {
                    problem = "a reply line longer than " + MAX_LINE + " bytes";
                    return Outcome.BROKEN;
                }
                return null;
            }
            ends[i] = newline;
            from = newline + 1;
        }
        in.readerIndex(from);
        Outcome outcome;
        if (kind == SET) {
            outcome = is(in, start, ends[0], setOk) ? Outcome.SUCCESS : null;
        } else if (kind == GET) {
            outcome = is(in, start, ends[0], getHit) ? Outcome.HIT
                    : is(in, start, ends[0], getMiss) ? Outcome.MISS : null;
        } else {
            outcome = Outcome.HIT;
            int lineStart = start;
            for (int i = 0; i < lines - 1 && outcome != null; i++) {
                if (is(in, lineStart, ends[i], multiMiss)) {
                    outcome = Outcome.MISS;
                } else if (!is(in, lineStart, ends[i], multiHit)) {
                    outcome = null;
                }
                lineStart = ends[i] + 1;
            }
            if (outcome != null && !is(in, lineStart, ends[lines - 1], end)) {
                outcome = null;
            }
        }
        if (outcome == null) {
            problem = "unexpected reply to method " + kind + ": "
                    + in.toString(start, Math.min(from - start, 200), StandardCharsets.ISO_8859_1).strip();
            return Outcome.ERROR;
        }
        return outcome;
    }

    private static boolean is(ByteBuf in, int start, int end, byte[] expected) {
        if (end - start != expected.length) {
            return false;
        }
        for (int i = 0; i < expected.length; i++) {
            if (in.getByte(start + i) != expected[i]) {
                return false;
            }
        }
        return true;
    }

    @Override
    public String problem() {
        return problem;
    }
}
