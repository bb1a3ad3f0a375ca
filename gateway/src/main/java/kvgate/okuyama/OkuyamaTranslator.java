package kvgate.okuyama;

import static kvgate.okuyama.OkuyamaFields.decode;
import static kvgate.okuyama.OkuyamaFields.encode;
import static kvgate.okuyama.OkuyamaFields.field;
import static kvgate.okuyama.OkuyamaFields.key;
import static kvgate.okuyama.OkuyamaFields.keyList;
import static kvgate.okuyama.OkuyamaFields.number;
import static kvgate.okuyama.OkuyamaFields.tag;
import static kvgate.okuyama.OkuyamaFields.tags;
import static kvgate.okuyama.OkuyamaReplies.PATTERN_NOT_FOUND;
import static kvgate.okuyama.OkuyamaReplies.TAG_LIST;
import static kvgate.okuyama.OkuyamaReplies.done;
import static kvgate.okuyama.OkuyamaReplies.error;
import static kvgate.okuyama.OkuyamaReplies.forward;
import static kvgate.okuyama.OkuyamaReplies.keyTooLong;
import static kvgate.okuyama.OkuyamaReplies.listFailure;
import static kvgate.okuyama.OkuyamaReplies.refusal;
import static kvgate.okuyama.OkuyamaReplies.shedReply;
import static kvgate.okuyama.OkuyamaReplies.storeReply;
import static kvgate.okuyama.OkuyamaReplies.tooLongReply;
import static kvgate.okuyama.OkuyamaReplies.undecodable;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import java.util.regex.Pattern;
import kvgate.dispatch.OperationStream;
import kvgate.net.FrameTranslator;
import kvgate.net.Translation;
import kvgate.okuyama.OkuyamaFields.BadField;
import kvgate.okuyama.OkuyamaFields.MissingField;
import kvgate.spi.Item;
import kvgate.spi.Namespace;
import kvgate.spi.OkuyamaVersions;
import kvgate.spi.Operation;
import kvgate.spi.Result;
import kvgate.spi.Status;
import kvgate.spi.StoreMode;

/**
 * One okuyama connection's translator: numbered request lines to operations, results to the reply lines the
 * reference server writes, down to the trailing commas its clients count on.
 *
 * <p>Unlike the reference, which stores keys, tags and values as the Base64 text it receives, the gateway decodes
 * them, so an okuyama client and a memcached client see the same bytes under the same key. Text that is not Base64
 * therefore names no key: a read of it finds nothing, a write of it is refused.
 */
public final class OkuyamaTranslator implements FrameTranslator<OkuyamaLine, String> {
    /** What the reference sends; its Java client reads 0.963, which enables every feature (0.9 and later). */
    static final String VERSION = "VERSION okuyama-0.9.6.3";
    static final String CLOSE = "(&imdst9999&)";
    /** A remove or an arithmetic that loses a CAS race this many times in a row gives up with an error reply. */
    static final int RETRIES = 16;
    private static final Pattern EXPORT_PARAMETERS = Pattern.compile("\\d+,\\d+");

    private final Namespace namespace;
    private final Clock clock;
    /** The largest value taken: the okuyama limit or the gateway's item size, whichever is smaller. */
    private final int maxValue;
    private final int announcedMaxValue;
    private final OkuyamaLists lists;
    private final OkuyamaByteValues byteValues;
    private final OkuyamaTransactions transactions;
    private final OkuyamaPeriods periods;
    private final OkuyamaOperatorCalls operator;
    private final OkuyamaSearch search;
    private final OkuyamaScripts scripts;
    /** Whether the line after a 101 may be its parameters ({@code <check ms>,<wait ms>}), which get no reply. */
    private boolean exportParameters;

    /**
     * The sizes an okuyama connection keeps to.
     *
     * @param maxValue the largest value taken, which initClient announces ({@code okuyama.max_value})
     * @param maxItemSize the largest item the gateway stores ({@code max_item_size}), which bounds a list
     * @param exportLimit the most items a data export or key list gives
     */
    public record Limits(int maxValue, int maxItemSize, int exportLimit) {
    }

    /**
     * @param namespace where okuyama keys, tags and the search index live ({@code okuyama.namespace})
     * @param transactions the locks, with transaction mode on or off
     * @param scripts where value scripts run; null when they are off
     */
    public OkuyamaTranslator(Namespace namespace, Clock clock, Limits limits, OkuyamaTransactions transactions,
                             ValueScripts scripts) {
        this.namespace = namespace;
        this.clock = clock;
        // initClient announces the okuyama limit; a value is also refused past what the gateway stores, with the
        // same reply, before anything is done with it.
        this.announcedMaxValue = limits.maxValue();
        this.maxValue = Math.min(limits.maxValue(), limits.maxItemSize());
        this.lists = new OkuyamaLists(namespace, limits.maxItemSize());
        this.byteValues = new OkuyamaByteValues(namespace, maxValue);
        this.transactions = transactions;
        this.periods = new OkuyamaPeriods(namespace, clock);
        this.operator = new OkuyamaOperatorCalls(namespace, limits.exportLimit());
        this.search = new OkuyamaSearch(namespace, maxValue);
        this.scripts = new OkuyamaScripts(namespace, maxValue, scripts);
    }

    /** A value to store, within the reference's limit and the gateway's item size. */
    private byte[] value(String field) {
        return OkuyamaFields.value(field, maxValue);
    }

    @Override
    public Translation<String> translate(OkuyamaLine frame) {
        if (frame instanceof OkuyamaLine.TooLong tooLong) {
            return tooLongReply(tooLong.head());
        }
        if (frame instanceof OkuyamaLine.Shed shed) {
            return shedReply(shed.head());
        }
        String line = ((OkuyamaLine.Text) frame).text();
        if (line.isEmpty() || line.equals(CLOSE)) {
            return Translation.answerAndClose(null);
        }
        if (exportParameters) {
            exportParameters = false;
            if (EXPORT_PARAMETERS.matcher(line).matches()) {
                return Translation.answer(null); // read by the reference's DataNode, which the gateway needs not
            }
        }
        String[] fields = line.split(",");
        OkuyamaMethod method;
        try {
            method = OkuyamaMethod.of(Integer.parseInt(fields.length == 0 ? "" : fields[0].strip()));
        } catch (NumberFormatException e) {
            return Translation.answer("-1,false,ERROR,Request Parameter Error");
        }
        if (method == null) {
            return Translation.answer(PATTERN_NOT_FOUND);
        }
        try {
            return method(method, line, fields);
        } catch (MissingField e) {
            return Translation.answer("-1,false,ERROR,ArgumentException");
        } catch (BadField e) {
            return refusal(method, switch (e.problem) {
                case KEY_TOO_LONG -> keyTooLong(method);
                case VALUE_TOO_LONG -> method.replyCode() + ",false,Value Length Error";
                case NOT_BASE64 -> undecodable(method);
            });
        }
    }

    private Translation<String> method(OkuyamaMethod method, String line, String[] fields) {
        Translation<String> translation = serve(method, line, fields);
        return transactions.on() ? guarded(method, fields, translation) : translation;
    }

    /**
     * A write as {@link OkuyamaTransactions#guard} runs it: once no other transaction holds a lock on its key, as the
     * reference's writes wait (the lock is checked on the key, a list's name, or each key of a 111; tags are not
     * locked). Reads never wait.
     */
    private Translation<String> guarded(OkuyamaMethod method, String[] fields, Translation<String> write) {
        // Where the key and the writer's transaction code are in each write's request line.
        int keyField;
        int codeField;
        switch (method) {
            case SET_VALUE, SET_NEW_VALUE, SET_VALUE_VERSION_CHECK, SET_VALUE_AND_CREATE_INDEX, LIST_L_PUSH,
                    LIST_R_PUSH -> {
                keyField = 1;
                codeField = 3;
            }
            case REMOVE_VALUE, INCR_VALUE, DECR_VALUE, CREATE_LIST_STRUCT, LIST_L_POP, LIST_R_POP -> {
                keyField = 1;
                codeField = 2;
            }
            case REMOVE_TAG_FROM_KEY -> {
                keyField = 2;
                codeField = 3;
            }
            case GET_VALUE_AND_UPDATE_EXPIRE_TIME, REMOVE_SEARCH_INDEX -> {
                // Their writes carry no transaction code (44's is ignored): they wait for any lock, as the
                // reference's do.
                return transactions.guard(method, List.of(key(field(fields, 1))), "0", write);
            }
            case SEND_MULTI_BYTE_VALUE -> {
                List<byte[]> keys = new ArrayList<>();
                if (write instanceof Translation.ForwardAll<String> all) {
                    for (Operation store : all.operations()) {
                        keys.add(((Operation.Store) store).key());
                    }
                }
                return transactions.guard(method, keys, field(fields, 1), write);
            }
            default -> {
                return write;
            }
        }
        return transactions.guard(method, List.of(key(field(fields, keyField))), field(fields, codeField), write);
    }

    private Translation<String> serve(OkuyamaMethod method, String line, String[] fields) {
        return switch (method) {
            case INIT_CLIENT -> Translation.answer("0,true," + announcedMaxValue);
            case GET_OKUYAMA_VERSION -> Translation.answer("999," + VERSION + ",");
            case SET_VALUE, SET_NEW_VALUE, SET_VALUE_VERSION_CHECK -> set(method, line, fields);
            case GET_VALUE -> {
                // The reference takes everything after "2," as the key, commas included.
                byte[] key = key(line.substring(line.indexOf(',') + 1));
                yield forward(new Operation.Get(namespace, key), result -> result instanceof Result.Value value
                        ? "2,true," + encode(value.item().value())
                        : result.status() == Status.NOT_FOUND ? "2,false," : error(method, result));
            }
            case GET_TAG_KEYS -> tagKeys(fields);
            case GET_VALUE_AND_UPDATE_EXPIRE_TIME -> periods.getAndExtend(key(field(fields, 1)));
            case REMOVE_VALUE -> {
                byte[] key = key(field(fields, 1));
                yield new Translation.Await<>(stream -> remove(stream, key, 0));
            }
            case INCR_VALUE, DECR_VALUE -> arithmetic(method, fields);
            case GET_VALUE_VERSION_CHECK -> forward(new Operation.Get(namespace, key(field(fields, 1))),
                    result -> result instanceof Result.Value value
                            ? "15,true," + encode(value.item().value()) + ","
                                    + OkuyamaVersions.version(value.item().cas())
                            : result.status() == Status.NOT_FOUND ? "15,false,," : error(method, result));
            case GET_MULTI_VALUE -> multiGet(fields);
            case GET_TAG_VALUES -> tagValues(fields);
            case REMOVE_TAG_FROM_KEY -> forward(new Operation.Untag(namespace, key(field(fields, 2)),
                    tag(field(fields, 1))), result -> result.ok() ? "40,true,"
                            : result.status() == Status.NOT_FOUND ? "40,false," : error(method, result));
            case SET_VALUE_AND_CREATE_INDEX -> search.setAndIndex(fields);
            case SEARCH_VALUE -> search.search(fields);
            case REMOVE_SEARCH_INDEX -> search.removeIndex(fields);
            case DICTIONARY_CHARACTERS -> OkuyamaSearch.dictionary(field(fields, 1));
            case GET_VALUE_SCRIPT, GET_VALUE_SCRIPT_FOR_UPDATE -> scripts.translate(method, fields);
            case START_TRANSACTION -> transactions.start();
            case LOCK_DATA -> transactions.lock(fields);
            case RELEASE_LOCK_DATA -> transactions.release(fields);
            case GET_TAG_INDEX_LIST -> tagBuckets(fields);
            case GET_TARGET_INDEX_TAG_KEYS -> tagBucketKeys(fields);
            case CREATE_LIST_STRUCT, LIST_L_PUSH, LIST_R_PUSH, LIST_INDEX, LIST_L_POP, LIST_R_POP, LIST_LEN ->
                    lists.translate(method, fields);
            case TRUNCATE -> operator.truncate(fields);
            case DATA_EXPORT -> {
                exportParameters = true;
                yield operator.export(clock.millis());
            }
            case KEY_LIST -> operator.keys();
            case SEND_MULTI_BYTE_VALUE -> byteValues.sendMulti(fields);
            case READ_BYTE_VALUE -> byteValues.read(fields);
        };
    }

    // --- stores: 1 setValue, 6 setNewValue, 16 setValueVersionCheck ---

    private Translation<String> set(OkuyamaMethod method, String line, String[] fields) {
        byte[] key = key(field(fields, 1));
        List<byte[]> tags = tags(field(fields, 2));
        field(fields, 3); // the lock id, always 0
        String valueField = field(fields, 4);
        int next = 5;
        long cas = 0;
        if (method == OkuyamaMethod.SET_VALUE_VERSION_CHECK) {
            cas = OkuyamaVersions.cas(field(fields, 5));
            next = 6;
            if (cas == OkuyamaVersions.NONE) {
                // Text that is no version names no item: out of date.
                return Translation.answer("16,false,NG:Data has already been updated");
            }
        }
        byte[] value = value(valueField);
        // The expiry is there only when the line ends with a comma, as the reference's clients send it.
        long seconds = line.endsWith(",") && fields.length > next ? seconds(fields[next]) : 0;
        Operation.Store store = new Operation.Store(namespace, key,
                method == OkuyamaMethod.SET_NEW_VALUE ? StoreMode.ADD : StoreMode.SET, value, 0, expiry(seconds), cas);
        Function<Result, String> reply = result -> storeReply(method, result);
        if (tags.isEmpty()) {
            // An expiry's period is kept beside the item, for getValueAndUpdateExpireTime.
            return seconds <= 0 ? forward(store, reply)
                    : new Translation.Await<>(stream -> periods.store(stream, store, seconds).thenApply(reply)
                            .thenApply(Translation::answer));
        }
        Operation.Tag tag = new Operation.Tag(namespace, key, tags);
        if (method == OkuyamaMethod.SET_VALUE) {
            // Tags first, as the reference: a value whose tag cannot take its key is not stored.
            return new Translation.Await<>(stream -> stream.dispatch(tag).thenCompose(tagged -> tagged.ok()
                    ? periods.store(stream, store, seconds).thenApply(reply)
                    : CompletableFuture.completedFuture(listFailure(method, TAG_LIST, tagged, false)))
                    .thenApply(Translation::answer));
        }
        // An add or a version-checked store must win the key before a tag names it, so it is tagged after
        // storing, as in the reference; a tagging that fails then leaves the value stored, and says so.
        return new Translation.Await<>(stream -> periods.store(stream, store, seconds).thenCompose(result -> result.ok()
                ? stream.dispatch(tag).thenApply(tagged -> tagged.ok() ? reply.apply(result)
                        : listFailure(method, TAG_LIST, tagged, true))
                : CompletableFuture.completedFuture(reply.apply(result))).thenApply(Translation::answer));
    }

    /** An expiry field's seconds: 0 for none, as the reference reads one that is not a number. */
    private static long seconds(String field) {
        try {
            return Math.min(Long.parseLong(field.strip()), Long.MAX_VALUE / 2000);
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    private long expiry(long seconds) {
        if (seconds == 0) {
            return Item.NEVER;
        }
        // A negative expiry stores a value that is already expired; 1 ms after the epoch is long past.
        return seconds < 0 ? 1 : clock.millis() + seconds * 1000;
    }

    // --- tags: 3 getTagKeys (answered as 4), 23 getTagValues ---

    private Translation<String> tagKeys(String[] fields) {
        byte[] tag = tag(field(fields, 1));
        // The reference lists removed keys unless told "false"; its Java client sends "true".
        boolean includeRemoved = fields.length <= 2 || fields[2].strip().toLowerCase(Locale.ROOT).equals("true");
        return forward(new Operation.TaggedKeys(namespace, tag, includeRemoved),
                result -> result instanceof Result.Keys keys
                        ? keys.keys().isEmpty() ? "4,false," : "4,true," + keyList(keys.keys())
                        : error(OkuyamaMethod.GET_TAG_KEYS, result));
    }

    /**
     * 45: the buckets of a tag's keys that getTagKeysResult pages through, as the reference numbers its slots; the
     * gateway keeps a tag's keys in one list, so there is one bucket, 0, when the tag names any key.
     */
    private Translation<String> tagBuckets(String[] fields) {
        byte[] tag = tag(field(fields, 1));
        return forward(new Operation.TaggedKeys(namespace, tag, true), result -> result instanceof Result.Keys keys
                ? keys.keys().isEmpty() ? "45,false," : "45,true,0"
                : error(OkuyamaMethod.GET_TAG_INDEX_LIST, result));
    }

    /** 46: the keys of one bucket of a tag ({@link #tagBuckets}): all of them from bucket 0, none from another. */
    private Translation<String> tagBucketKeys(String[] fields) {
        byte[] tag = tag(field(fields, 1));
        long bucket;
        try {
            bucket = Long.parseLong(field(fields, 2).strip());
        } catch (NumberFormatException e) {
            // The reference's data node cannot read it and never answers; its master node then gives up with this.
            return Translation.answer("46,error,MasterNode - Exception");
        }
        if (bucket != 0) {
            return Translation.answer("46,false,");
        }
        return forward(new Operation.TaggedKeys(namespace, tag, true), result -> result instanceof Result.Keys keys
                ? keys.keys().isEmpty() ? "46,false," : "46,true," + keyList(keys.keys())
                : error(OkuyamaMethod.GET_TARGET_INDEX_TAG_KEYS, result));
    }

    private Translation<String> tagValues(String[] fields) {
        byte[] tag = tag(field(fields, 1));
        return new Translation.Await<>(stream -> stream.dispatch(new Operation.TaggedKeys(namespace, tag, true))
                .thenCompose(result -> {
                    if (!(result instanceof Result.Keys keys)) {
                        return CompletableFuture.completedFuture(Translation.<String>answers(
                                List.of(error(OkuyamaMethod.GET_TAG_VALUES, result), "END")));
                    }
                    List<Operation> gets = new ArrayList<>();
                    for (byte[] key : keys.keys()) {
                        gets.add(new Operation.Get(namespace, key));
                    }
                    return stream.dispatchJoined(gets).thenApply(values -> {
                        List<String> lines = new ArrayList<>();
                        for (int i = 0; i < values.size(); i++) {
                            if (values.get(i) instanceof Result.Value value) {
                                lines.add("23,true," + encode(keys.keys().get(i)) + ","
                                        + encode(value.item().value()));
                            }
                        }
                        lines.add("END");
                        return Translation.answers(lines);
                    });
                }));
    }

    // --- 22 getMultiValue ---

    private Translation<String> multiGet(String[] fields) {
        if (fields.length < 2) {
            throw new MissingField();
        }
        List<Operation> gets = new ArrayList<>();
        List<String> refused = new ArrayList<>();
        for (int i = 1; i < fields.length; i++) {
            try {
                gets.add(new Operation.Get(namespace, key(fields[i])));
                refused.add(null);
            } catch (BadField e) {
                gets.add(null);
                refused.add(e.problem == BadField.Problem.KEY_TOO_LONG ? "22,false,Key Length Error" : "22,false,");
            }
        }
        List<Operation> valid = new ArrayList<>();
        for (Operation get : gets) {
            if (get != null) {
                valid.add(get);
            }
        }
        return new Translation.Await<>(stream -> stream.dispatchJoined(valid).thenApply(results -> {
            List<String> lines = new ArrayList<>(gets.size() + 1);
            int next = 0;
            for (int i = 0; i < gets.size(); i++) {
                if (gets.get(i) == null) {
                    lines.add(refused.get(i));
                    continue;
                }
                Result result = results.get(next++);
                lines.add(result instanceof Result.Value value ? "22,true," + encode(value.item().value())
                        : result.status() == Status.NOT_FOUND ? "22,false,"
                        : error(OkuyamaMethod.GET_MULTI_VALUE, result));
            }
            lines.add("END");
            return Translation.answers(lines);
        }));
    }

    // --- 5 removeValue: the reply carries the removed value, so read it, then delete exactly that item ---

    private CompletionStage<Translation.Answer<String>> remove(OperationStream stream, byte[] key, int attempt) {
        return stream.dispatch(new Operation.Get(namespace, key)).thenCompose(read -> {
            if (!(read instanceof Result.Value value)) {
                return done(read.status() == Status.NOT_FOUND ? "5,false," : error(OkuyamaMethod.REMOVE_VALUE, read));
            }
            return stream.dispatch(new Operation.Delete(namespace, key, value.item().cas())).thenCompose(gone -> {
                if (gone.ok()) {
                    return done("5,true," + encode(value.item().value()));
                }
                if ((gone.status() == Status.EXISTS || gone.status() == Status.NOT_FOUND) && attempt < RETRIES) {
                    return remove(stream, key, attempt + 1); // changed or removed meanwhile: look again
                }
                return done(error(OkuyamaMethod.REMOVE_VALUE, gone));
            });
        });
    }

    // --- 13 incrValue, 14 decrValue ---

    private Translation<String> arithmetic(OkuyamaMethod method, String[] fields) {
        byte[] key = key(field(fields, 1));
        field(fields, 2);
        String deltaField = field(fields, 3);
        boolean create = fields.length > 4 && fields[4].strip().equals("1");
        int delta;
        try {
            // As the reference: the text is read as an int exactly, spaces and all; decr puts a minus sign before
            // any text that does not start with one, so it always subtracts ("+5" becomes "-+5": no number).
            String text = new String(decode(deltaField), StandardCharsets.UTF_8);
            delta = Integer.parseInt(method == OkuyamaMethod.DECR_VALUE && !text.startsWith("-") ? "-" + text : text);
        } catch (NumberFormatException | BadField e) {
            return Translation.answer(method.replyCode() + ",false,NG");
        }
        return new Translation.Await<>(stream -> arithmetic(stream, method, key, delta, create, 0));
    }

    /**
     * okuyama's arithmetic, the same on every backend: the stored text read as the reference reads it (a Java long,
     * else 0), plus the delta in long arithmetic (so a sum past the largest long wraps below 0), floored at 0. The
     * backends' own arithmetic reads stored text differently (memcached takes " 5", none takes "-5"), so it runs
     * only where it agrees: on a stored value in plain digits whose result stays a long. Anything else is written
     * back with the item's CAS, keeping its flags and expiry.
     */
    private CompletionStage<Translation.Answer<String>> arithmetic(OperationStream stream, OkuyamaMethod method,
                                                                    byte[] key, int delta, boolean create,
                                                                    int attempt) {
        return stream.dispatch(new Operation.Get(namespace, key)).thenCompose(read -> {
            if (read instanceof Result.Value value) {
                return arithmeticOn(stream, method, key, value.item(), delta, create, attempt);
            }
            if (read.status() != Status.NOT_FOUND) {
                return done(error(method, read));
            }
            if (!create) {
                return done(method.replyCode() + ",false,NG");
            }
            // Created at 0, then counted, as the reference does.
            byte[] text = decimal(Math.max(0, delta));
            return stream.dispatch(new Operation.Store(namespace, key, StoreMode.ADD, text, 0, Item.NEVER, 0))
                    .thenCompose(added -> added.ok() ? done(counted(method, text))
                            : again(stream, method, key, delta, create, attempt, added, Status.EXISTS,
                                    Status.NOT_STORED));
        });
    }

    private CompletionStage<Translation.Answer<String>> arithmeticOn(OperationStream stream, OkuyamaMethod method,
                                                                      byte[] key, Item item, int delta,
                                                                      boolean create, int attempt) {
        Long stored = referenceNumber(item.value());
        long now = stored == null ? 0 : stored;
        // memcached's arithmetic writes a shorter result padded with spaces to the old length, which the reference
        // would read as no number: a decrement that shortens the number is written back here instead.
        if (stored != null && now >= 0 && Arrays.equals(item.value(), decimal(now))
                && (delta <= 0 || now <= Long.MAX_VALUE - delta)
                && decimal(Math.max(0, now + delta)).length >= item.value().length) {
            // Atomic in the backend: concurrent counters never race for a CAS.
            Operation.Arithmetic operation = new Operation.Arithmetic(namespace, key, delta >= 0,
                    Math.abs((long) delta), 0, false, Item.NEVER, 0);
            return stream.dispatch(operation).thenCompose(result -> result instanceof Result.Number number
                    ? done(counted(method, Long.toUnsignedString(number.value()).getBytes(StandardCharsets.US_ASCII)))
                    : again(stream, method, key, delta, create, attempt, result, Status.NON_NUMERIC, Status.NOT_FOUND));
        }
        byte[] text = decimal(Math.max(0, now + delta));
        return stream.dispatch(new Operation.Store(namespace, key, StoreMode.SET, text, item.flags(),
                item.expiresAt(), item.cas())).thenCompose(written -> written.ok() ? done(counted(method, text))
                        : again(stream, method, key, delta, create, attempt, written, Status.EXISTS, Status.NOT_FOUND));
    }

    /** The item changed under the arithmetic (a {@code race} status): start over from a fresh read, a few times. */
    private CompletionStage<Translation.Answer<String>> again(OperationStream stream, OkuyamaMethod method, byte[] key,
                                                               int delta, boolean create, int attempt, Result result,
                                                               Status... races) {
        if (attempt < RETRIES && Arrays.asList(races).contains(result.status())) {
            return arithmetic(stream, method, key, delta, create, attempt + 1);
        }
        return done(error(method, result));
    }

    /** The stored value as the reference reads it, or null where it reads no number. */
    private static Long referenceNumber(byte[] value) {
        try {
            return Long.parseLong(new String(value, StandardCharsets.UTF_8));
        } catch (NumberFormatException e) {
            return null;
        }
    }

    private static byte[] decimal(long number) {
        return Long.toString(number).getBytes(StandardCharsets.US_ASCII);
    }

    private static String counted(OkuyamaMethod method, byte[] text) {
        return method.replyCode() + ",true," + encode(text);
    }
}
