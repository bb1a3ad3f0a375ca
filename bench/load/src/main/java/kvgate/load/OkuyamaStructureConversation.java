package kvgate.load;

import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.SplittableRandom;

/**
 * okuyama's lists and locks, on their hot paths:
 * <ul>
 *   <li>lists: the fill creates a list per key (createListStruct, 51); then each connection pushes onto the tail of a
 *   random list (listRPush, 53) and pops the head of the same list (listLPop, 55), over and over, so lists stay
 *   short and many connections change the same lists (each change a read and a CAS write in the gateway);</li>
 *   <li>locks: a startTransaction (37) per connection first; then lockData (30) of a random key, one second's
 *   locking time and no waiting, and releaseLockData (31) of it, over and over. A lock another connection holds is
 *   a refusal the reference gives too ({@code 30,false,}), counted as a miss; every other reply is checked.</li>
 * </ul>
 * Each request is one operation. Pipelined pairs stay in order on a connection, so every pop or release follows its
 * own push or lock.
 */
final class OkuyamaStructureConversation implements Conversation {
    private static final int CREATE = 51;
    private static final int PUSH = 53;
    private static final int POP = 55;
    private static final int START = 37;
    private static final int LOCK = 30;
    private static final int RELEASE = 31;
    private static final int MAX_LINE = 1 << 20;

    private final boolean locks;
    private final Workload workload;
    private final SplittableRandom random;
    private final Base64.Encoder base64 = Base64.getEncoder();
    private final String value;
    /** The key the next request pops or releases, or -1 when the next one pushes or locks. */
    private long held = -1;
    /** This connection's transaction code, from its startTransaction. */
    private String transaction;
    private String problem;

    OkuyamaStructureConversation(Workload workload, int connection, boolean locks) {
        this.locks = locks;
        this.workload = workload;
        this.random = workload.random(connection);
        this.value = base64.encodeToString(workload.value());
    }

    @Override
    public int preambleSteps() {
        return locks ? 1 : 0;
    }

    @Override
    public int writePreamble(ByteBuf out, int step, int tag) {
        ascii(out, "37\n");
        return START;
    }

    @Override
    public int writeFill(ByteBuf out, long key, int tag) {
        ascii(out, "51,");
        out.writeBytes(base64.encode(workload.keys().bytes(key)));
        ascii(out, ",0\n");
        return CREATE;
    }

    @Override
    public int writeNext(ByteBuf out, int tag) {
        boolean second = held >= 0;
        long key = second ? held : workload.randomKey(random);
        held = second ? -1 : key;
        int kind = locks ? (second ? RELEASE : LOCK) : (second ? POP : PUSH);
        ascii(out, kind + ",");
        out.writeBytes(base64.encode(workload.keys().bytes(key)));
        switch (kind) {
            case PUSH -> ascii(out, "," + value + ",0\n");
            case POP -> ascii(out, ",0\n");
            case LOCK -> ascii(out, "," + transaction + ",1,0\n");
            default -> ascii(out, "," + transaction + "\n");
        }
        return kind;
    }

    private static void ascii(ByteBuf out, String text) {
        out.writeCharSequence(text, StandardCharsets.US_ASCII);
    }

    @Override
    public Outcome read(ByteBuf in, int kind, int tag) {
        int start = in.readerIndex();
        int newline = in.indexOf(start, in.writerIndex(), (byte) '\n');
        if (newline < 0) {
            if (in.readableBytes() > MAX_LINE) {
                problem = "a reply line longer than " + MAX_LINE + " bytes";
                return Outcome.BROKEN;
            }
            return null;
        }
        String line = in.toString(start, newline - start, StandardCharsets.US_ASCII);
        in.readerIndex(newline + 1);
        Outcome outcome = switch (kind) {
            case START -> {
                if (!line.startsWith("37,true,")) {
                    yield null;
                }
                transaction = line.substring("37,true,".length());
                yield Outcome.SUCCESS;
            }
            case CREATE -> line.equals("51,true,OK") || line.equals("51,false,list already exists")
                    ? Outcome.SUCCESS : null;
            case PUSH -> line.equals("53,true,OK") ? Outcome.SUCCESS : null;
            case POP -> line.startsWith("55,true,") ? Outcome.HIT : line.equals("55,false,") ? Outcome.MISS : null;
            case LOCK -> line.equals("30,true," + transaction) ? Outcome.SUCCESS
                    : line.equals("30,false,") ? Outcome.MISS : null;
            default -> line.equals("31,true," + transaction) || line.equals("31,false,") ? Outcome.SUCCESS : null;
        };
        if (outcome == null) {
            problem = "unexpected reply to method " + kind + ": " + line;
            return Outcome.ERROR;
        }
        return outcome;
    }

    @Override
    public String problem() {
        return problem;
    }
}
