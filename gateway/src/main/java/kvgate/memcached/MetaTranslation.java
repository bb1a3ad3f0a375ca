package kvgate.memcached;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.function.BooleanSupplier;
import kvgate.collections.CollectionsManifest;
import kvgate.memcached.text.TextCommand;
import kvgate.memcached.text.TextReply;
import kvgate.net.Translation;
import kvgate.spi.Item;
import kvgate.spi.Operation;
import kvgate.spi.Result;
import kvgate.spi.Status;
import kvgate.spi.StoreMode;

/**
 * memcached's meta commands on the operation stream: {@code mg} a get (a touch with {@code T}), {@code ms} a store in
 * the mode {@code M} names, {@code md} a delete, {@code ma} arithmetic, {@code me} a get described, each with
 * memcached's two-letter replies and the flags the request asked back, in its order.
 */
final class MetaTranslation {
    private static final TextReply.Line NOOP = TextReply.line("MN");
    private static final TextReply.Line INVALID_FLAG = TextReply.line("CLIENT_ERROR invalid flag");
    private static final TextReply.Line NON_NUMERIC =
            TextReply.line("CLIENT_ERROR cannot increment or decrement non-numeric value");

    private MetaTranslation() {
    }

    /**
     * @param readsTellExpiry whether every backend of the route tree in force tells an item's expiry when it reads
     *     it: where one cannot (memcached's reads do not), {@code mg}'s {@code t} flag is refused as memcached refuses
     *     a flag it does not know, and {@code me} leaves the expiry out
     */
    static Translation<TextReply> translate(TextCommand.Meta meta, CollectionsManifest.Collection collection,
                                            long nowMillis, BooleanSupplier readsTellExpiry) {
        return switch (meta.verb()) {
            case NOOP -> Translation.answer(NOOP);
            // Asked only of a request that needs it: the answer walks the backends of the tree in force.
            case GET -> meta.flags().returned().stream().noneMatch(flag -> flag[0] == 't')
                    || readsTellExpiry.getAsBoolean() ? get(meta, collection, nowMillis)
                    : Translation.answer(INVALID_FLAG);
            case SET -> set(meta, collection, nowMillis);
            case DELETE -> delete(meta, collection);
            case ARITHMETIC -> arithmetic(meta, collection, nowMillis);
            case DEBUG -> new Translation.Forward<>(new Operation.Get(collection.namespace(), meta.key()),
                    result -> Translation.answer(result instanceof Result.Value hit
                            ? described(meta, hit.item(), nowMillis, readsTellExpiry.getAsBoolean())
                            : result.status() == Status.NOT_FOUND ? TextReply.line("EN")
                            : TextTranslator.failure(result.status())));
        };
    }

    /** me's line: the expiry (where the backends tell it), CAS and size of the item. */
    private static TextReply described(TextCommand.Meta meta, Item item, long nowMillis, boolean withExpiry) {
        return TextReply.line("ME " + key(meta) + (withExpiry ? " exp=" + ttl(item, nowMillis) : "") + " cas="
                + Long.toUnsignedString(item.cas()) + " size=" + item.value().length);
    }

    private static Translation<TextReply> get(TextCommand.Meta meta, CollectionsManifest.Collection collection,
                                              long nowMillis) {
        TextCommand.MetaFlags flags = meta.flags();
        Operation operation = flags.ttl() == null ? new Operation.Get(collection.namespace(), meta.key())
                : new Operation.Touch(collection.namespace(), meta.key(),
                MemcachedExpiry.expiresAt(flags.ttl(), collection, nowMillis));
        return new Translation.Forward<>(operation, result -> {
            if (result instanceof Result.Value hit) {
                Item item = hit.item();
                StringBuilder head = new StringBuilder(flags.value() ? "VA " + item.value().length : "HD");
                for (byte[] flag : flags.returned()) {
                    switch (flag[0]) {
                        case 's' -> head.append(" s").append(item.value().length);
                        case 't' -> head.append(" t").append(ttl(item, nowMillis));
                        case 'c' -> head.append(" c").append(Long.toUnsignedString(item.cas()));
                        case 'f' -> head.append(" f").append(Integer.toUnsignedString(item.flags()));
                        default -> echo(head, flag, meta);
                    }
                }
                return Translation.answer(flags.value() ? new TextReply.Block(line(head), item.value())
                        : new TextReply.Line(line(head)));
            }
            if (result.status() == Status.NOT_FOUND) {
                return Translation.answer(flags.quiet() ? null : echoed("EN", meta));
            }
            return Translation.answer(TextTranslator.failure(result.status()));
        });
    }

    private static Translation<TextReply> set(TextCommand.Meta meta, CollectionsManifest.Collection collection,
                                              long nowMillis) {
        TextCommand.MetaFlags flags = meta.flags();
        StoreMode mode = switch (flags.mode()) {
            case 'E' -> StoreMode.ADD;
            case 'A' -> StoreMode.APPEND;
            case 'P' -> StoreMode.PREPEND;
            case 'R' -> StoreMode.REPLACE;
            default -> StoreMode.SET;
        };
        Long compare = mode == StoreMode.ADD ? null : flags.compareCas();
        if (compare != null && compare == 0) {
            // No item has CAS 0: memcached compares and finds a difference, or nothing to compare with.
            return new Translation.Forward<>(new Operation.Get(collection.namespace(), meta.key()),
                    result -> Translation.answer(result.ok() ? stored("EX", meta, 0)
                            : result.status() == Status.NOT_FOUND ? stored("NF", meta, 0)
                            : TextTranslator.failure(result.status())));
        }
        long expiresAt = flags.ttl() == null ? MemcachedExpiry.expiresAt(0, collection, nowMillis)
                : MemcachedExpiry.expiresAt(flags.ttl(), collection, nowMillis);
        boolean keepsItsOwn = mode == StoreMode.APPEND || mode == StoreMode.PREPEND;
        Operation store = new Operation.Store(collection.namespace(), meta.key(), mode, meta.data(),
                keepsItsOwn ? 0 : flags.clientFlags(), keepsItsOwn ? Item.NEVER : expiresAt,
                compare == null ? 0 : compare);
        return new Translation.Forward<>(store, result -> {
            if (result instanceof Result.Stored stored) {
                return Translation.answer(flags.quiet() ? null : stored("HD", meta, stored.cas()));
            }
            return Translation.answer(switch (result.status()) {
                case EXISTS -> stored(mode == StoreMode.ADD ? "NS" : "EX", meta, 0);
                case NOT_FOUND -> stored(compare != null ? "NF" : "NS", meta, 0);
                case NOT_STORED -> stored("NS", meta, 0);
                default -> TextTranslator.failure(result.status());
            });
        });
    }

    /** An {@code ms} reply: its code, then the opaque, key and CAS it asked back. */
    private static TextReply stored(String code, TextCommand.Meta meta, long cas) {
        return new TextReply.Line(line(head(code, meta, cas)));
    }

    private static Translation<TextReply> delete(TextCommand.Meta meta, CollectionsManifest.Collection collection) {
        TextCommand.MetaFlags flags = meta.flags();
        if (flags.compareCas() != null && flags.compareCas() == 0) {
            return new Translation.Forward<>(new Operation.Get(collection.namespace(), meta.key()),
                    result -> Translation.answer(result.ok() ? echoed("EX", meta)
                            : result.status() == Status.NOT_FOUND ? echoed("NF", meta)
                            : TextTranslator.failure(result.status())));
        }
        return new Translation.Forward<>(new Operation.Delete(collection.namespace(), meta.key(),
                flags.compareCas() == null ? 0 : flags.compareCas()), result -> Translation.answer(switch (
                result.status()) {
            case OK -> flags.quiet() ? null : echoed("HD", meta);
            case NOT_FOUND -> echoed("NF", meta);
            case EXISTS -> echoed("EX", meta);
            default -> TextTranslator.failure(result.status());
        }));
    }

    private static Translation<TextReply> arithmetic(TextCommand.Meta meta, CollectionsManifest.Collection collection,
                                                     long nowMillis) {
        TextCommand.MetaFlags flags = meta.flags();
        boolean increment = flags.mode() != 'D' && flags.mode() != '-';
        boolean create = flags.vivify() != null;
        long expiresAt = create ? MemcachedExpiry.expiresAt(flags.vivify(), collection, nowMillis) : Item.NEVER;
        Operation operation = new Operation.Arithmetic(collection.namespace(), meta.key(), increment, flags.delta(),
                flags.initial(), create, expiresAt, flags.compareCas() == null ? 0 : flags.compareCas());
        return new Translation.Forward<>(operation, result -> {
            if (result instanceof Result.Number number) {
                if (flags.quiet()) {
                    return Translation.answer(null);
                }
                String digits = Long.toUnsignedString(number.value());
                CharSequence head = head(flags.value() ? "VA " + digits.length() : "HD", meta, number.cas());
                return Translation.answer(flags.value()
                        ? new TextReply.Block(line(head), digits.getBytes(StandardCharsets.US_ASCII))
                        : new TextReply.Line(line(head)));
            }
            return Translation.answer(switch (result.status()) {
                case NOT_FOUND -> echoed("NF", meta);
                case EXISTS -> echoed("EX", meta);
                case NOT_STORED -> echoed("NS", meta);
                case NON_NUMERIC -> NON_NUMERIC;
                default -> TextTranslator.failure(result.status());
            });
        });
    }

    /** {@code code} and the opaque and key the request asked back. */
    private static TextReply echoed(String code, TextCommand.Meta meta) {
        return new TextReply.Line(line(head(code, meta, null)));
    }

    /**
     * A reply line of ms, md and ma: {@code code}, then the flags the request asked back that these commands return,
     * in its order: the opaque, the key, and the CAS when {@code cas} is given (a miss or a refusal has none).
     */
    private static CharSequence head(String code, TextCommand.Meta meta, Long cas) {
        StringBuilder head = new StringBuilder(code);
        for (byte[] flag : meta.flags().returned()) {
            if (flag[0] == 'c' && cas != null) {
                head.append(" c").append(Long.toUnsignedString(cas));
            } else if (flag[0] == 'O' || flag[0] == 'k') {
                echo(head, flag, meta);
            }
        }
        return head;
    }

    /** Appends an opaque ({@code O}) as sent, or the key ({@code k}), base64 with {@code b} when it came so. */
    private static void echo(StringBuilder head, byte[] flag, TextCommand.Meta meta) {
        if (flag[0] == 'O') {
            head.append(' ').append(new String(flag, StandardCharsets.ISO_8859_1));
        } else if (flag[0] == 'k') {
            head.append(" k").append(key(meta));
            if (meta.flags().binaryKey()) {
                head.append(" b");
            }
        }
    }

    private static String key(TextCommand.Meta meta) {
        return meta.flags().binaryKey() ? Base64.getEncoder().encodeToString(meta.key())
                : new String(meta.key(), StandardCharsets.ISO_8859_1);
    }

    /** Seconds the item has left, -1 when it never expires, as memcached's {@code t} flag says. */
    private static long ttl(Item item, long nowMillis) {
        if (item.expiresAt() == Item.NEVER) {
            return -1;
        }
        return Math.max(0, (item.expiresAt() - nowMillis + 999) / 1000);
    }

    private static byte[] line(CharSequence head) {
        return (head + "\r\n").getBytes(StandardCharsets.ISO_8859_1);
    }
}
