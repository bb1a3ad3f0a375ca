package kvgate.memcached;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import kvgate.collections.CollectionsManifest;
import kvgate.memcached.text.TextCommand;
import kvgate.memcached.text.TextReply;
import kvgate.net.Translation;
import kvgate.spi.Item;
import kvgate.spi.ItemTransition;
import kvgate.spi.Operation;
import kvgate.spi.Result;
import kvgate.spi.Status;
import kvgate.spi.StoreMode;

/**
 * memcached's meta commands on the operation stream: {@code mg} a get (a touch with {@code T}), {@code ms} a store in
 * the mode {@code M} names, {@code md} a delete, {@code ma} arithmetic, {@code me} a get described, each with
 * memcached's two-letter replies and the flags the request asked back, in its order. Where every backend keeps
 * leases, {@code mg} is a {@link Operation.LeaseGet} (a stale item's lease goes to the first get, with or without
 * flags), {@code md} with {@code I} an {@link Operation.Invalidate}, and {@code ms} with {@code I} a store that keeps
 * a late writer's value as stale; the reply then ends with memcached's {@code Z}, {@code X} and {@code W}. Where
 * every backend takes a CAS chosen by the client, {@code E} gives the item each of them writes that CAS.
 */
final class MetaTranslation {
    private static final TextReply.Line NOOP = TextReply.line("MN");
    private static final TextReply.Line INVALID_FLAG = TextReply.line("CLIENT_ERROR invalid flag");
    private static final TextReply.Line INVALID_OR_DUPLICATE_FLAG =
            TextReply.line("CLIENT_ERROR invalid or duplicate flag");
    private static final TextReply.Line NON_NUMERIC =
            TextReply.line("CLIENT_ERROR cannot increment or decrement non-numeric value");

    private MetaTranslation() {
    }

    /**
     * @param features what every backend of the route tree in force keeps of an item: where one cannot tell an
     *     item's expiry (memcached's reads do not), {@code mg}'s {@code t} flag is refused as memcached refuses a flag
     *     it does not know, and {@code me} leaves the expiry out; where one's arithmetic does not set and tell a
     *     counter's expiry, so are {@code T} and {@code t} of {@code ma}; where one keeps no leases, so are {@code N}
     *     and {@code R} of {@code mg} and {@code I} of {@code md} and {@code ms}; where one cannot take a CAS the
     *     client chose, so is {@code E}
     */
    static Translation<TextReply> translate(TextCommand.Meta meta, CollectionsManifest.Collection collection,
                                            long nowMillis, ItemFeatures features) {
        TextCommand.MetaFlags flags = meta.flags();
        if (flags.chosenCas() != 0 && !features.takesChosenCas().getAsBoolean()) {
            // md and ma word their refusal of a flag their own way.
            return Translation.answer(meta.verb() == TextCommand.MetaVerb.DELETE
                    || meta.verb() == TextCommand.MetaVerb.ARITHMETIC ? INVALID_OR_DUPLICATE_FLAG : INVALID_FLAG);
        }
        return switch (meta.verb()) {
            case NOOP -> Translation.answer(NOOP);
            case GET -> {
                if (!features.readsTellExpiry().getAsBoolean() && returns(flags, 't')) {
                    yield Translation.answer(INVALID_FLAG);
                }
                boolean leases = features.keepsLeases().getAsBoolean();
                if (!leases && (flags.vivify() != null || flags.recache() != null)) {
                    yield Translation.answer(INVALID_FLAG);
                }
                yield get(meta, collection, nowMillis, leases);
            }
            // I applies to a set or replace with a CAS only, as memcached's; elsewhere memcached reads it and does
            // nothing.
            case SET -> staleIfOlder(flags) && !features.keepsLeases().getAsBoolean()
                    ? Translation.answer(INVALID_FLAG) : set(meta, collection, nowMillis);
            case DELETE -> flags.invalidate() && !features.keepsLeases().getAsBoolean()
                    ? Translation.answer(INVALID_OR_DUPLICATE_FLAG) : delete(meta, collection, nowMillis);
            // T and t of ma set and tell the counter's expiry, which needs a backend whose arithmetic does; ma words
            // its refusal of a flag as md does.
            case ARITHMETIC -> !features.arithmeticSetsExpiry().getAsBoolean()
                    && (flags.ttl() != null || returns(flags, 't'))
                    ? Translation.answer(INVALID_OR_DUPLICATE_FLAG) : arithmetic(meta, collection, nowMillis);
            case DEBUG -> new Translation.Forward<>(new Operation.Get(collection.namespace(), meta.key()),
                    result -> Translation.answer(result instanceof Result.Value hit
                            ? described(meta, hit.item(), nowMillis, features.readsTellExpiry().getAsBoolean())
                            : result.status() == Status.NOT_FOUND ? TextReply.line("EN")
                            : TextTranslator.failure(result.status())));
        };
    }

    /** Whether the request asks {@code letter} back: a walk of its flags, so asked after the cheaper checks. */
    private static boolean returns(TextCommand.MetaFlags flags, char letter) {
        return flags.returned().stream().anyMatch(flag -> flag[0] == letter);
    }

    /** me's line: the expiry (where the backends tell it), CAS and size of the item. */
    private static TextReply described(TextCommand.Meta meta, Item item, long nowMillis, boolean withExpiry) {
        return TextReply.line("ME " + key(meta) + (withExpiry ? " exp=" + ttl(item.expiresAt(), nowMillis) : "")
                + " cas=" + Long.toUnsignedString(item.cas()) + " size=" + item.value().length);
    }

    private static Translation<TextReply> get(TextCommand.Meta meta, CollectionsManifest.Collection collection,
                                              long nowMillis, boolean leases) {
        TextCommand.MetaFlags flags = meta.flags();
        Long touch = flags.ttl() == null ? null : MemcachedExpiry.expiresAt(flags.ttl(), collection, nowMillis);
        Operation operation;
        if (leases) {
            operation = new Operation.LeaseGet(collection.namespace(), meta.key(), touch,
                    flags.vivify() == null ? null : MemcachedExpiry.expiresAt(flags.vivify(), collection, nowMillis),
                    flags.recache() == null ? null : recacheWithin(flags.recache(), nowMillis), flags.chosenCas());
        } else {
            operation = touch == null ? new Operation.Get(collection.namespace(), meta.key())
                    : new Operation.Touch(collection.namespace(), meta.key(), touch);
        }
        return new Translation.Forward<>(operation, result -> {
            if (result instanceof Result.Value hit) {
                return Translation.answer(found(meta, hit.item(), null, nowMillis));
            }
            if (result instanceof Result.Leased leased) {
                return Translation.answer(found(meta, leased.item(), leased, nowMillis));
            }
            if (result.status() == Status.NOT_FOUND) {
                return Translation.answer(flags.quiet() ? null : echoed("EN", meta));
            }
            return Translation.answer(TextTranslator.failure(result.status()));
        });
    }

    /**
     * An {@code mg} hit: {@code VA} with the value (unless {@code C} names the item's CAS) or {@code HD}, the flags
     * asked back in the request's order, then
     * for a lease get as memcached ends it: {@code Z} when another client won the item's lease, {@code X} when it is
     * stale, {@code W} when this request won it.
     *
     * @param leased the lease get's answer, or null for a plain get (no lease flags: none can be won)
     */
    private static TextReply found(TextCommand.Meta meta, Item item, Result.Leased leased, long nowMillis) {
        TextCommand.MetaFlags flags = meta.flags();
        // With C, the value goes only to a client whose copy is not the item's (memcached 1.6.2x): one holding the
        // current CAS revalidates without the value coming back.
        boolean value = flags.value() && (flags.compareCas() == null || flags.compareCas() != item.cas());
        StringBuilder head = new StringBuilder(value ? "VA " + item.value().length : "HD");
        for (byte[] flag : flags.returned()) {
            switch (flag[0]) {
                case 's' -> head.append(" s").append(item.value().length);
                case 't' -> head.append(" t").append(ttl(item.expiresAt(), nowMillis));
                case 'c' -> head.append(" c").append(Long.toUnsignedString(item.cas()));
                case 'f' -> head.append(" f").append(Integer.toUnsignedString(item.flags()));
                default -> echo(head, flag, meta);
            }
        }
        if (leased != null) {
            if (item.lease().won() && !leased.won()) {
                head.append(" Z");
            }
            if (item.lease().stale()) {
                head.append(" X");
            }
            if (leased.won()) {
                head.append(" W");
            }
        }
        return value ? new TextReply.Block(line(head), item.value()) : new TextReply.Line(line(head));
    }

    /**
     * {@code R}'s token as how near its expiry an item must be: memcached reads it as an expiry, so that 0 or less
     * (an item never expires before that) never wins.
     */
    private static Long recacheWithin(int token, long nowMillis) {
        long at = MemcachedExpiry.toMillis(token, nowMillis);
        return at == Item.NEVER ? Long.MIN_VALUE : at - nowMillis;
    }

    /** {@code ms} with {@code I}: a set or replace with a CAS, whose older CAS stores the value as stale. */
    private static boolean staleIfOlder(TextCommand.MetaFlags flags) {
        StoreMode mode = storeMode(flags);
        return flags.invalidate() && flags.compareCas() != null && (mode == StoreMode.SET || mode == StoreMode.REPLACE);
    }

    private static StoreMode storeMode(TextCommand.MetaFlags flags) {
        return switch (flags.mode()) {
            case 'E' -> StoreMode.ADD;
            case 'A' -> StoreMode.APPEND;
            case 'P' -> StoreMode.PREPEND;
            case 'R' -> StoreMode.REPLACE;
            default -> StoreMode.SET;
        };
    }

    private static Translation<TextReply> set(TextCommand.Meta meta, CollectionsManifest.Collection collection,
                                              long nowMillis) {
        TextCommand.MetaFlags flags = meta.flags();
        StoreMode mode = storeMode(flags);
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
                compare == null ? 0 : compare, false, staleIfOlder(flags), flags.chosenCas());
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

    private static Translation<TextReply> delete(TextCommand.Meta meta, CollectionsManifest.Collection collection,
                                                 long nowMillis) {
        TextCommand.MetaFlags flags = meta.flags();
        if (flags.compareCas() != null && flags.compareCas() == 0) {
            return new Translation.Forward<>(new Operation.Get(collection.namespace(), meta.key()),
                    result -> Translation.answer(result.ok() ? echoed("EX", meta)
                            : result.status() == Status.NOT_FOUND ? echoed("NF", meta)
                            : TextTranslator.failure(result.status())));
        }
        long cas = flags.compareCas() == null ? 0 : flags.compareCas();
        // With I the item is marked stale instead, with T its expiry set too.
        Operation operation = flags.invalidate() ? new Operation.Invalidate(collection.namespace(), meta.key(), cas,
                flags.ttl() == null ? null : MemcachedExpiry.expiresAt(flags.ttl(), collection, nowMillis),
                flags.chosenCas()) : new Operation.Delete(collection.namespace(), meta.key(), cas);
        return new Translation.Forward<>(operation, result -> Translation.answer(switch (
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
        Long touch = flags.ttl() == null ? null : MemcachedExpiry.expiresAt(flags.ttl(), collection, nowMillis);
        Operation operation = new Operation.Arithmetic(collection.namespace(), meta.key(), increment, flags.delta(),
                flags.initial(), create, expiresAt, flags.compareCas() == null ? 0 : flags.compareCas(), touch,
                flags.chosenCas());
        return new Translation.Forward<>(operation, result -> {
            if (result instanceof Result.Number number) {
                if (flags.quiet()) {
                    return Translation.answer(null);
                }
                String digits = Long.toUnsignedString(number.value());
                CharSequence head = head(flags.value() ? "VA " + digits.length() : "HD", meta, number.cas(),
                        ttl(number.expiresAt(), nowMillis));
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

    /** A reply line of ms, md and ma, as {@link #head(String, TextCommand.Meta, Long, Long)} without an expiry. */
    private static CharSequence head(String code, TextCommand.Meta meta, Long cas) {
        return head(code, meta, cas, null);
    }

    /**
     * A reply line of ms, md and ma: {@code code}, then the flags the request asked back that these commands return,
     * in its order: the opaque, the key, the CAS when {@code cas} is given (a miss or a refusal has none), and the
     * seconds left ({@code t}, ma's) when {@code ttl} is.
     */
    private static CharSequence head(String code, TextCommand.Meta meta, Long cas, Long ttl) {
        StringBuilder head = new StringBuilder(code);
        for (byte[] flag : meta.flags().returned()) {
            if (flag[0] == 'c' && cas != null) {
                head.append(" c").append(Long.toUnsignedString(cas));
            } else if (flag[0] == 't' && ttl != null) {
                head.append(" t").append(ttl);
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

    /** Seconds an item expiring at {@code expiresAt} has left, -1 when it never expires, as memcached's {@code t}. */
    private static long ttl(long expiresAt, long nowMillis) {
        return expiresAt == Item.NEVER ? -1 : ItemTransition.secondsLeft(expiresAt, nowMillis);
    }

    private static byte[] line(CharSequence head) {
        return (head + "\r\n").getBytes(StandardCharsets.ISO_8859_1);
    }
}
