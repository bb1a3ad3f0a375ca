package kvgate.memcached;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import kvgate.server.FrameTranslator;
import kvgate.server.GatewayVersion;
import kvgate.server.Translation;
import kvgate.spi.Item;
import kvgate.spi.Namespace;
import kvgate.spi.Operation;
import kvgate.spi.Result;
import kvgate.spi.Status;
import kvgate.spi.StoreMode;

/**
 * Turns memcached binary requests into operations and operation results into replies, with memcached's rules:
 * which replies carry a CAS, flags or the key, which quiet commands stay silent, what each error says.
 */
public final class BinaryTranslator implements FrameTranslator<BinaryResponse> {
    /**
     * The Version reply. It starts with a memcached release number because clients parse it to decide which
     * protocol features to use; the semantics served are memcached 1.6's.
     */
    public static final String VERSION = "1.6.0 kvgate/" + GatewayVersion.VERSION;
    private static final byte[] VERSION_BYTES = VERSION.getBytes(StandardCharsets.US_ASCII);
    /** Incr/decr expiry meaning "do not create a missing counter". */
    private static final int NO_CREATE = 0xffffffff;

    private final Namespace namespace;
    private final Clock clock;
    private final MemcachedStats stats;

    public BinaryTranslator(Namespace namespace, Clock clock, MemcachedStats stats) {
        this.namespace = namespace;
        this.clock = clock;
        this.stats = stats;
    }

    @Override
    public Translation<BinaryResponse> translate(Object frame) {
        if (frame instanceof MalformedFrame malformed) {
            return translateMalformed(malformed);
        }
        BinaryRequest request = (BinaryRequest) frame;
        Opcode opcode = Opcode.of(request.opcode());
        if (opcode == null) {
            return error(request, BinaryStatus.UNKNOWN_COMMAND);
        }
        if (request.dataType() != 0 || opcode.shapeProblem(request) != null) {
            return error(request, BinaryStatus.INVALID_ARGUMENTS);
        }
        long now = clock.millis();
        ByteBuffer extras = ByteBuffer.wrap(request.extras());
        byte[] key = request.key();
        return switch (opcode) {
            case GET, GETQ, GETK, GETKQ -> forward(new Operation.Get(namespace, key), request);
            case SET, SETQ -> store(request, StoreMode.SET, extras, now);
            case ADD, ADDQ -> request.cas() != 0
                    // An add compares with nothing, so a CAS makes no sense (Couchbase refuses it too).
                    ? error(request, BinaryStatus.INVALID_ARGUMENTS)
                    : store(request, StoreMode.ADD, extras, now);
            case REPLACE, REPLACEQ -> store(request, StoreMode.REPLACE, extras, now);
            case APPEND, APPENDQ -> forward(new Operation.Store(namespace, key, StoreMode.APPEND, request.value(), 0,
                    Item.NEVER, request.cas()), request);
            case PREPEND, PREPENDQ -> forward(new Operation.Store(namespace, key, StoreMode.PREPEND, request.value(),
                    0, Item.NEVER, request.cas()), request);
            case DELETE, DELETEQ -> forward(new Operation.Delete(namespace, key, request.cas()), request);
            case INCREMENT, INCREMENTQ, DECREMENT, DECREMENTQ -> {
                long delta = extras.getLong(0);
                long initial = extras.getLong(8);
                int expiry = extras.getInt(16);
                boolean increment = opcode == Opcode.INCREMENT || opcode == Opcode.INCREMENTQ;
                yield forward(new Operation.Arithmetic(namespace, key, increment, delta, initial,
                        expiry != NO_CREATE, expiry == NO_CREATE ? Item.NEVER : MemcachedExpiry.toMillis(expiry, now),
                        request.cas()), request);
            }
            case TOUCH, GAT, GATQ -> forward(new Operation.Touch(namespace, key,
                    MemcachedExpiry.toMillis(extras.getInt(0), now)), request);
            case FLUSH, FLUSHQ -> forward(new Operation.Flush(namespace,
                    request.extras().length == 4 ? MemcachedExpiry.delayMillis(extras.getInt(0), now) : 0), request);
            case NOOP, VERBOSITY -> answer(BinaryResponse.success(request));
            case VERSION -> answer(BinaryResponse.value(request, BinaryResponse.EMPTY, VERSION_BYTES));
            case QUIT -> Translation.answerAndClose(BinaryResponse.success(request));
            case QUITQ -> Translation.answerAndClose(null);
            case STAT -> stat(request);
            case HELLO -> hello(request);
        };
    }

    /** The reply to a forwarded request, or null when the protocol wants silence. */
    private BinaryResponse reply(BinaryRequest request, Result result) {
        Opcode opcode = Opcode.of(request.opcode());
        if (!result.ok()) {
            return errorReply(request, opcode, result.status());
        }
        return switch (opcode) {
            case GET, GETQ, GAT, GATQ -> item(request, ((Result.Value) result).item(), BinaryResponse.EMPTY, true);
            case GETK, GETKQ -> item(request, ((Result.Value) result).item(), request.key(), true);
            case TOUCH -> item(request, ((Result.Value) result).item(), BinaryResponse.EMPTY, false);
            case SET, ADD, REPLACE, APPEND, PREPEND ->
                    BinaryResponse.success(request, ((Result.Stored) result).cas(), BinaryResponse.EMPTY);
            case INCREMENT, DECREMENT -> {
                Result.Number number = (Result.Number) result;
                yield BinaryResponse.success(request, number.cas(), BinaryResponse.u64(number.value()));
            }
            case DELETE, FLUSH -> BinaryResponse.success(request);
            case SETQ, ADDQ, REPLACEQ, APPENDQ, PREPENDQ, DELETEQ, INCREMENTQ, DECREMENTQ, FLUSHQ -> null;
            case QUIT, QUITQ, NOOP, VERSION, STAT, VERBOSITY, HELLO ->
                    throw new IllegalStateException(opcode + " is answered without the backend");
        };
    }

    private static BinaryResponse errorReply(BinaryRequest request, Opcode opcode, Status status) {
        if (status == Status.NOT_FOUND) {
            switch (opcode) {
                case GETQ, GETKQ, GATQ -> {
                    return null; // a quiet get answers hits only
                }
                case GETK -> {
                    // memcached names the missing key in a GETK miss, so a client can match it without the opaque.
                    return new BinaryResponse(request.opcode(), BinaryStatus.KEY_NOT_FOUND.code(), request.opaque(),
                            0, BinaryResponse.EMPTY, request.key(), BinaryResponse.EMPTY);
                }
                default -> {
                }
            }
        }
        return BinaryResponse.error(request.opcode(), request.opaque(), BinaryStatus.of(status));
    }

    private static BinaryResponse item(BinaryRequest request, Item item, byte[] key, boolean withValue) {
        return new BinaryResponse(request.opcode(), 0, request.opaque(), item.cas(), BinaryResponse.u32(item.flags()),
                key, withValue ? item.value() : BinaryResponse.EMPTY);
    }

    private Translation<BinaryResponse> store(BinaryRequest request, StoreMode mode, ByteBuffer extras, long now) {
        int flags = extras.getInt(0);
        long expiresAt = MemcachedExpiry.toMillis(extras.getInt(4), now);
        return forward(new Operation.Store(namespace, request.key(), mode, request.value(), flags, expiresAt,
                request.cas()), request);
    }

    private Translation<BinaryResponse> translateMalformed(MalformedFrame frame) {
        BinaryResponse error = BinaryResponse.error(frame.opcode(), frame.opaque(), frame.status());
        Translation.Answer<BinaryResponse> answer = frame.closeConnection()
                ? Translation.answerAndClose(error) : Translation.answer(error);
        Opcode opcode = Opcode.of(frame.opcode());
        boolean set = opcode == Opcode.SET || opcode == Opcode.SETQ;
        if (frame.status() == BinaryStatus.TOO_LARGE && set && frame.key().length > 0
                && frame.key().length <= Opcode.MAX_KEY_LENGTH) {
            // As memcached does: a set that failed for size must not leave the old value readable as if current.
            return new Translation.Forward<>(new Operation.Delete(namespace, frame.key(), 0), result -> answer);
        }
        return answer;
    }

    private Translation<BinaryResponse> stat(BinaryRequest request) {
        Map<String, String> group = stats.group(new String(request.key(), StandardCharsets.US_ASCII));
        if (group == null) {
            return error(request, BinaryStatus.KEY_NOT_FOUND);
        }
        List<BinaryResponse> replies = new ArrayList<>(group.size() + 1);
        group.forEach((name, value) -> replies.add(BinaryResponse.value(request,
                name.getBytes(StandardCharsets.US_ASCII), value.getBytes(StandardCharsets.US_ASCII))));
        replies.add(BinaryResponse.success(request)); // the empty terminator
        return Translation.answers(replies);
    }

    private Translation<BinaryResponse> hello(BinaryRequest request) {
        // No optional feature is granted yet; the reply lists the granted codes, so it is empty. Unknown codes are
        // dropped silently, as the protocol requires.
        return answer(BinaryResponse.value(request, BinaryResponse.EMPTY, BinaryResponse.EMPTY));
    }

    private Translation<BinaryResponse> forward(Operation operation, BinaryRequest request) {
        return new Translation.Forward<>(operation, result -> Translation.answer(reply(request, result)));
    }

    private static Translation<BinaryResponse> answer(BinaryResponse reply) {
        return Translation.answer(reply);
    }

    private static Translation<BinaryResponse> error(BinaryRequest request, BinaryStatus status) {
        return answer(BinaryResponse.error(request.opcode(), request.opaque(), status));
    }
}
