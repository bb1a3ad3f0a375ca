package kvgate.okuyama;

import static kvgate.okuyama.OkuyamaFields.BLANK;
import static kvgate.okuyama.OkuyamaFields.encode;
import static kvgate.okuyama.OkuyamaFields.field;
import static kvgate.okuyama.OkuyamaFields.key;
import static kvgate.okuyama.OkuyamaReplies.done;
import static kvgate.okuyama.OkuyamaReplies.error;
import static kvgate.okuyama.OkuyamaReplies.forward;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Supplier;
import kvgate.dispatch.OperationStream;
import kvgate.net.Translation;
import kvgate.spi.Item;
import kvgate.spi.Namespace;
import kvgate.spi.Operation;
import kvgate.spi.Result;
import kvgate.spi.Status;
import kvgate.spi.StoreMode;

/**
 * okuyama's list structure (createListStruct, listLPush, listRPush, listIndex, listLPop, listRPop, listLen) with the
 * reference's replies. A list is one item of a namespace of its own, so a list and a key of the same name are two
 * things, as in the reference; each change reads it and writes it back with its CAS, retried when another client
 * changed it meanwhile, so lists are atomic under concurrent clients and gateways on every backend. A list holds at
 * most {@code max_item_size} bytes in all (its items and four bytes each).
 */
final class OkuyamaLists {
    /** A change that loses a CAS race this many times in a row gives up with an error reply. */
    private static final int RETRIES = 32;

    private final Namespace lists;
    private final int maxItemSize;

    /**
     * @param namespace the okuyama keyspace; its lists live in a namespace of the gateway's own beside it
     * @param maxItemSize the most a list holds, in bytes
     */
    OkuyamaLists(Namespace namespace, int maxItemSize) {
        this.lists = namespaceOf(namespace);
        this.maxItemSize = maxItemSize;
    }

    /** Where the lists of the okuyama keyspace {@code namespace} live. */
    static Namespace namespaceOf(Namespace namespace) {
        return new Namespace("kvgate:okuyama-lists:" + namespace.name());
    }

    Translation<String> translate(OkuyamaMethod method, String[] fields) {
        byte[] name = key(field(fields, 1));
        return switch (method) {
            case CREATE_LIST_STRUCT -> {
                field(fields, 2);
                yield forward(new Operation.Store(lists, name, StoreMode.ADD, new byte[0], 0, Item.NEVER, 0),
                        result -> result.ok() ? "51,true,OK" : result.status() == Status.EXISTS
                                ? "51,false,list already exists" : error(method, result));
            }
            case LIST_L_PUSH, LIST_R_PUSH -> {
                String data = field(fields, 2);
                field(fields, 3);
                if (data.length() >= OkuyamaFields.MAX_VALUE_FIELD) {
                    yield Translation.answer(method.code() + ",false,listData Length Error");
                }
                byte[] item = data.equals(BLANK) ? new byte[0] : OkuyamaFields.decode(data);
                boolean left = method == OkuyamaMethod.LIST_L_PUSH;
                yield new Translation.Await<>(stream -> push(stream, name, item, left, 0));
            }
            case LIST_INDEX -> {
                long index;
                try {
                    index = Long.parseLong(field(fields, 2).strip());
                } catch (NumberFormatException e) {
                    yield Translation.answer("54,false,Please specify \"index\" numerically.");
                }
                yield forward(new Operation.Get(lists, name), result -> {
                    if (!(result instanceof Result.Value value)) {
                        return result.status() == Status.NOT_FOUND ? "54,false," : error(method, result);
                    }
                    List<byte[]> items = items(value.item().value());
                    // As the reference: 0 and anything below it is the head; there is no counting from the tail.
                    int at = (int) Math.max(0, Math.min(index, Integer.MAX_VALUE));
                    return at < items.size() ? "54,true," + encode(items.get(at)) : "54,false,";
                });
            }
            case LIST_L_POP, LIST_R_POP -> new Translation.Await<>(stream -> pop(stream, method, name, 0));
            case LIST_LEN -> forward(new Operation.Get(lists, name), result -> result instanceof Result.Value value
                    ? "57,true," + items(value.item().value()).size()
                    : result.status() == Status.NOT_FOUND ? "57,false," : error(method, result));
            default -> throw new IllegalArgumentException(method + " is not a list method");
        };
    }

    private CompletionStage<Translation.Answer<String>> push(OperationStream stream, byte[] name, byte[] item,
                                                             boolean left, int attempt) {
        String code = left ? "52" : "53";
        return stream.dispatch(new Operation.Get(lists, name)).thenCompose(read -> {
            if (!(read instanceof Result.Value value)) {
                // The reference words the two misses differently.
                return done(read.status() != Status.NOT_FOUND ? code + ",error," + OkuyamaReplies.failure(read)
                        : left ? "52,false,Missing List Struct" : "53,false,Missing list struct");
            }
            byte[] list = value.item().value();
            if ((long) list.length + Integer.BYTES + item.length > maxItemSize) {
                return done(code + ",false," + (left ? "listLPush" : "listRPush") + " - Error");
            }
            ByteBuffer changed = ByteBuffer.allocate(list.length + Integer.BYTES + item.length);
            if (left) {
                changed.putInt(item.length).put(item).put(list);
            } else {
                changed.put(list).putInt(item.length).put(item);
            }
            return stream.dispatch(new Operation.Store(lists, name, StoreMode.SET, changed.array(), 0, Item.NEVER,
                    value.item().cas())).thenCompose(stored -> {
                        if (stored.ok()) {
                            return done(code + ",true,OK");
                        }
                        if (raced(stored) && attempt < RETRIES) {
                            return retry(attempt, () -> push(stream, name, item, left, attempt + 1));
                        }
                        return done(code + ",error," + OkuyamaReplies.failure(stored));
                    });
        });
    }

    private CompletionStage<Translation.Answer<String>> pop(OperationStream stream, OkuyamaMethod method, byte[] name,
                                                            int attempt) {
        return stream.dispatch(new Operation.Get(lists, name)).thenCompose(read -> {
            if (!(read instanceof Result.Value value)) {
                return done(read.status() == Status.NOT_FOUND ? method.code() + ",false," : error(method, read));
            }
            List<byte[]> items = items(value.item().value());
            if (items.isEmpty()) {
                return done(method.code() + ",false,");
            }
            byte[] popped = method == OkuyamaMethod.LIST_L_POP ? items.remove(0) : items.remove(items.size() - 1);
            return stream.dispatch(new Operation.Store(lists, name, StoreMode.SET, list(items), 0, Item.NEVER,
                    value.item().cas())).thenCompose(stored -> {
                        if (stored.ok()) {
                            return done(method.code() + ",true," + encode(popped));
                        }
                        if (raced(stored) && attempt < RETRIES) {
                            return retry(attempt, () -> pop(stream, method, name, attempt + 1));
                        }
                        return done(error(method, stored));
                    });
        });
    }

    /**
     * Tries again after a lost race: at once the first times, then after a random pause of up to {@code attempt}
     * milliseconds. Without the pause, on a store with round trips of its own, the client that just won comes back
     * with its next write before the losers retry, and wins again: one writer could lose every time.
     */
    private static <T> CompletionStage<T> retry(int attempt, Supplier<CompletionStage<T>> again) {
        return attempt < 4 ? again.get()
                : OkuyamaTransactions.later(1 + ThreadLocalRandom.current().nextInt(attempt), again);
    }

    /** Another client changed or removed the list between the read and the write. */
    private static boolean raced(Result result) {
        return result.status() == Status.EXISTS || result.status() == Status.NOT_FOUND;
    }

    /** A list's items, from its stored form: each item's length as four bytes, then the item. */
    static List<byte[]> items(byte[] list) {
        ByteBuffer read = ByteBuffer.wrap(list);
        List<byte[]> items = new ArrayList<>();
        while (read.remaining() >= Integer.BYTES) {
            int length = read.getInt();
            if (length < 0 || length > read.remaining()) {
                break; // not a list this class wrote: what could be read is the list
            }
            byte[] item = new byte[length];
            read.get(item);
            items.add(item);
        }
        return items;
    }

    static byte[] list(List<byte[]> items) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] item : items) {
            out.writeBytes(ByteBuffer.allocate(Integer.BYTES).putInt(item.length).array());
            out.writeBytes(item);
        }
        return out.toByteArray();
    }
}
