package kvgate.counter;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import kvgate.net.FrameTranslator;
import kvgate.net.Translation;
import kvgate.spi.Namespace;
import kvgate.spi.Operation;
import kvgate.spi.Result;

/**
 * One counter-protocol connection's translator. Requests are checked in the reference server's order (lengths,
 * then zero resources, then a maximum below the resources, then the name) and answered "invalid arguments" on the
 * first failure; bytes after the fields a request needs are ignored, as the reference does. Everything the
 * connection acquired is released when it closes.
 */
public final class CounterTranslator implements FrameTranslator<CounterFrame, CounterResponse> {
    /**
     * Counters live apart from every key-value namespace: the colon keeps the name out of reach of bucket names,
     * so a bucket called "counters" is no clash in a backend that keeps both.
     */
    public static final Namespace NAMESPACE = new Namespace("kvgate:counters");

    static final int NOOP = 0x00, GET = 0x01, ACQUIRE = 0x02, RELEASE = 0x03, STATS = 0x10, DUMP = 0x11;

    private final String owner;
    private final CounterStats stats;

    /** @param owner this connection's name in the counter store's ledger, unique among all gateways */
    public CounterTranslator(String owner, CounterStats stats) {
        this.owner = owner;
        this.stats = stats;
    }

    @Override
    public Translation<CounterResponse> translate(CounterFrame frame) {
        if (frame instanceof CounterFrame.BadMagic bad) {
            return error(bad.opcode(), bad.opaque(), CounterStatus.INVALID_ARGUMENTS);
        }
        CounterFrame.Request request = (CounterFrame.Request) frame;
        int opcode = request.opcode();
        int opaque = request.opaque();
        byte[] body = request.body();
        switch (opcode) {
            case NOOP -> {
                stats.noop();
                return success(opcode, opaque, CounterResponse.EMPTY);
            }
            case GET -> {
                byte[] name = name(body, 0);
                if (name == null) {
                    return error(opcode, opaque, CounterStatus.INVALID_ARGUMENTS);
                }
                return forward(new Operation.ReadCounter(NAMESPACE, name, owner), opcode, opaque,
                        result -> u32(((Result.Number) result).value()));
            }
            case ACQUIRE -> {
                if (body.length < 10) {
                    return error(opcode, opaque, CounterStatus.INVALID_ARGUMENTS);
                }
                long resources = u32(body, 0);
                long maximum = u32(body, 4);
                byte[] name = name(body, 8);
                if (resources == 0 || maximum < resources || name == null) {
                    return error(opcode, opaque, CounterStatus.INVALID_ARGUMENTS);
                }
                return forward(new Operation.Acquire(NAMESPACE, name, resources, maximum, owner), opcode, opaque,
                        result -> u32(((Result.Number) result).value()));
            }
            case RELEASE -> {
                byte[] name = body.length < 6 ? null : name(body, 4);
                if (name == null) {
                    return error(opcode, opaque, CounterStatus.INVALID_ARGUMENTS);
                }
                return forward(new Operation.Release(NAMESPACE, name, u32(body, 0), owner), opcode, opaque,
                        result -> CounterResponse.EMPTY);
            }
            case STATS -> {
                // Taken once the requests before it are dispatched, as the reference runs one connection's commands
                // in order: a pipelined acquire before it is counted in it.
                return new Translation.Await<>(stream -> {
                    stats.statsCommand();
                    return CompletableFuture.completedFuture(
                            Translation.answer(CounterResponse.success(opcode, opaque, stats.body())));
                });
            }
            case DUMP -> {
                return new Translation.Forward<>(new Operation.DumpCounters(NAMESPACE, owner),
                        result -> dump(opcode, opaque, result));
            }
            default -> {
                // The reference answers with opcode 0x12 here; the protocol says the opcode is copied, so it is.
                return error(opcode, opaque, CounterStatus.UNKNOWN_COMMAND);
            }
        }
    }

    @Override
    public List<Operation> closed() {
        return List.of(new Operation.ReleaseAll(NAMESPACE, owner));
    }

    private static Translation.Answer<CounterResponse> dump(int opcode, int opaque, Result result) {
        if (!result.ok()) {
            return Translation.answer(CounterResponse.error(opcode, opaque, CounterStatus.of(result.status())));
        }
        List<Result.CounterState> counters = ((Result.Counters) result).counters();
        List<CounterResponse> replies = new ArrayList<>(counters.size() + 1);
        for (Result.CounterState counter : counters) {
            ByteBuffer body = ByteBuffer.allocate(10 + counter.name().length);
            body.putInt((int) counter.consumption()).putInt((int) counter.maxInInterval())
                    .putShort((short) counter.name().length).put(counter.name());
            replies.add(CounterResponse.success(opcode, opaque, body.array()));
        }
        replies.add(CounterResponse.success(opcode, opaque, CounterResponse.EMPTY)); // the terminator
        return Translation.answers(replies);
    }

    private interface SuccessBody {
        byte[] of(Result result);
    }

    private static Translation<CounterResponse> forward(Operation operation, int opcode, int opaque,
                                                        SuccessBody body) {
        return new Translation.Forward<>(operation, result -> Translation.answer(result.ok()
                ? CounterResponse.success(opcode, opaque, body.of(result))
                : CounterResponse.error(opcode, opaque, CounterStatus.of(result.status()))));
    }

    /** The name at {@code offset}: a 16-bit length and the bytes; null when empty or running past the body. */
    private static byte[] name(byte[] body, int offset) {
        if (body.length < offset + 2) {
            return null;
        }
        int length = ((body[offset] & 0xff) << 8) | (body[offset + 1] & 0xff);
        if (length == 0 || offset + 2 + length > body.length) {
            return null;
        }
        byte[] name = new byte[length];
        System.arraycopy(body, offset + 2, name, 0, length);
        return name;
    }

    private static long u32(byte[] body, int offset) {
        return ByteBuffer.wrap(body, offset, 4).getInt() & 0xffffffffL;
    }

    private static byte[] u32(long value) {
        return ByteBuffer.allocate(4).putInt((int) value).array();
    }

    private static Translation<CounterResponse> success(int opcode, int opaque, byte[] body) {
        return Translation.answer(CounterResponse.success(opcode, opaque, body));
    }

    private static Translation<CounterResponse> error(int opcode, int opaque, CounterStatus status) {
        return Translation.answer(CounterResponse.error(opcode, opaque, status));
    }
}
