package kvgate.spi;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.function.LongSupplier;

/**
 * What one {@link Operation.KeyOperation} does to the item under its key, as a pure function: given the item there
 * now (or none), the transition says what to write and what to answer. A backend whose store offers an atomic
 * read-modify-write of one key (a lock stripe, a compare-and-set loop, a transaction) gets memcached's full
 * semantics — CAS checks, add/replace rules, append, unsigned arithmetic, expiry — by applying it inside that
 * atomic section, and needs no protocol knowledge of its own. The local store is built exactly this way.
 *
 * @param effect what to do to the stored item
 * @param next the item to store when {@code effect} is {@link Effect#PUT}, otherwise null
 * @param result what the operation completes with
 */
public record ItemTransition(Effect effect, Item next, Result result) {

    /** What a transition does to the stored item. */
    public enum Effect {
        /** Leave the store as it is. */
        NONE,
        /** Store {@link #next()} under the key. */
        PUT,
        /** Remove the key. */
        REMOVE
    }

    /**
     * What a get of {@code current} answers, without a transition: the item, or {@link Status#NOT_FOUND} when there
     * is none or it has expired. The clock is read only for an item that expires, so a store that serves reads
     * outside its write lock (as the local store does) need not read it for every get.
     */
    public static Result read(Item current, LongSupplier clockMillis) {
        boolean live = current != null && (current.expiresAt() == Item.NEVER
                || !current.isExpiredAt(clockMillis.getAsLong()));
        return read(live ? current : null);
    }

    private static Result read(Item live) {
        return live == null ? Result.failure(Status.NOT_FOUND) : new Result.Value(live);
    }

    /**
     * Decides what {@code op} does to {@code current}.
     *
     * @param op the operation
     * @param current the stored item, or null when there is none; an expired item is treated as missing
     * @param nowMillis the current time, for expiry
     * @param newCas called once, only when the transition writes, for the CAS of the new item, unless the operation
     *     chose it ({@link Operation.KeyOperation#chosenCas()})
     * @param maxItemSize the largest value a store may produce, in bytes
     */
    public static ItemTransition apply(Operation.KeyOperation op, Item current, long nowMillis, LongSupplier newCas,
                                       int maxItemSize) {
        Item live = current == null || current.isExpiredAt(nowMillis) ? null : current;
        // The CAS the write chose, where it chose one (memcached's meta E), or the backend's next.
        LongSupplier cas = op.chosenCas() == 0 ? newCas : op::chosenCas;
        return op.accept(new Operation.Visitor<>() {
            @Override
            public ItemTransition get(Operation.Get get) {
                return answer(read(live));
            }

            @Override
            public ItemTransition store(Operation.Store store) {
                return applyStore(store, live, nowMillis, cas, maxItemSize);
            }

            @Override
            public ItemTransition delete(Operation.Delete delete) {
                ItemTransition refused = refusedByCas(live, delete.cas());
                if (refused != null) {
                    return refused;
                }
                return new ItemTransition(Effect.REMOVE, null, new Result.Removed(live));
            }

            @Override
            public ItemTransition arithmetic(Operation.Arithmetic arithmetic) {
                return applyArithmetic(arithmetic, live, nowMillis, cas);
            }

            @Override
            public ItemTransition touch(Operation.Touch touch) {
                if (live == null) {
                    return fail(Status.NOT_FOUND);
                }
                Item touched = new Item(live.value(), live.flags(), live.cas(), touch.expiresAt(), live.lease());
                if (touched.isExpiredAt(nowMillis)) {
                    return new ItemTransition(Effect.REMOVE, null, new Result.Value(touched));
                }
                return new ItemTransition(Effect.PUT, touched, new Result.Value(touched));
            }

            @Override
            public ItemTransition leaseGet(Operation.LeaseGet get) {
                return applyLeaseGet(get, live, nowMillis, cas);
            }

            @Override
            public ItemTransition invalidate(Operation.Invalidate invalidate) {
                ItemTransition refused = refusedByCas(live, invalidate.cas());
                if (refused != null) {
                    return refused;
                }
                long newer = cas.getAsLong();
                Item stale = new Item(live.value(), live.flags(), newer, invalidate.expiresAt() == null
                        ? live.expiresAt() : invalidate.expiresAt(), Lease.STALE);
                return stale.isExpiredAt(nowMillis) ? new ItemTransition(Effect.REMOVE, null, new Result.Stored(newer))
                        : new ItemTransition(Effect.PUT, stale, new Result.Stored(newer));
            }

            @Override
            public ItemTransition flush(Operation.Flush flush) {
                throw new AssertionError("flush is not a key operation");
            }
        });
    }

    private static ItemTransition applyStore(Operation.Store store, Item live, long nowMillis, LongSupplier newCas,
                                             int maxItemSize) {
        StoreMode mode = store.mode();
        if (live == null) {
            if (mode == StoreMode.APPEND || mode == StoreMode.PREPEND) {
                return fail(Status.NOT_STORED);
            }
            if (mode == StoreMode.REPLACE || store.cas() != 0) {
                return fail(Status.NOT_FOUND);
            }
        } else {
            if (mode == StoreMode.ADD) {
                return fail(Status.EXISTS);
            }
            if (store.cas() != 0 && store.cas() != live.cas()) {
                if (store.staleIfOlder() && (mode == StoreMode.SET || mode == StoreMode.REPLACE)
                        && Long.compareUnsigned(store.cas(), live.cas()) < 0) {
                    return storeStale(store, live, nowMillis, newCas, maxItemSize);
                }
                return fail(Status.EXISTS);
            }
        }
        byte[] value;
        int flags;
        long expiresAt;
        if (mode == StoreMode.APPEND || mode == StoreMode.PREPEND) {
            long length = (long) live.value().length + store.value().length;
            if (length > maxItemSize) {
                return fail(Status.TOO_LARGE);
            }
            value = mode == StoreMode.APPEND ? concat(live.value(), store.value())
                    : concat(store.value(), live.value());
            flags = live.flags();
            expiresAt = live.expiresAt();
        } else {
            if (store.value().length > maxItemSize) {
                return fail(Status.TOO_LARGE);
            }
            value = store.value();
            flags = store.flags();
            expiresAt = store.keepExpiry() && live != null ? live.expiresAt() : store.expiresAt();
        }
        long cas = newCas.getAsLong();
        Item next = new Item(value, flags, cas, expiresAt);
        // A store that is expired on arrival (memcached's negative expiry) succeeds and replaces the old item,
        // which is then simply gone.
        if (next.isExpiredAt(nowMillis)) {
            return new ItemTransition(Effect.REMOVE, null, new Result.Stored(cas));
        }
        return new ItemTransition(Effect.PUT, next, new Result.Stored(cas));
    }

    /** A late writer's value (an older CAS): kept, marked stale, with the item's expiry and handed-out state. */
    private static ItemTransition storeStale(Operation.Store store, Item live, long nowMillis, LongSupplier newCas,
                                             int maxItemSize) {
        if (store.value().length > maxItemSize) {
            return fail(Status.TOO_LARGE);
        }
        long cas = newCas.getAsLong();
        Item next = new Item(store.value(), store.flags(), cas, live.expiresAt(),
                live.lease().won() ? Lease.STALE_WON : Lease.STALE);
        return next.isExpiredAt(nowMillis) ? new ItemTransition(Effect.REMOVE, null, new Result.Stored(cas))
                : new ItemTransition(Effect.PUT, next, new Result.Stored(cas));
    }

    private static ItemTransition applyLeaseGet(Operation.LeaseGet get, Item live, long nowMillis,
                                                LongSupplier newCas) {
        if (live == null) {
            if (get.vivifyExpiresAt() == null) {
                return fail(Status.NOT_FOUND);
            }
            // memcached's placeholder: empty, flags 0, its lease handed to the get that made it.
            Item created = new Item(new byte[0], 0, newCas.getAsLong(), get.vivifyExpiresAt(), Lease.WON);
            return created.isExpiredAt(nowMillis) ? answer(new Result.Leased(created, true))
                    : new ItemTransition(Effect.PUT, created, new Result.Leased(created, true));
        }
        Lease lease = live.lease();
        boolean won = !lease.won() && (lease.stale() || get.recacheWithinMillis() != null
                && live.expiresAt() != Item.NEVER && secondsLeft(live, nowMillis) * 1000 < get.recacheWithinMillis());
        long expiresAt = get.touchExpiresAt() == null ? live.expiresAt() : get.touchExpiresAt();
        if (!won && expiresAt == live.expiresAt()) {
            return answer(new Result.Leased(live, false));
        }
        Item next = new Item(live.value(), live.flags(), live.cas(), expiresAt, won ? lease.handedOut() : lease);
        return next.isExpiredAt(nowMillis) ? new ItemTransition(Effect.REMOVE, null, new Result.Leased(next, won))
                : new ItemTransition(Effect.PUT, next, new Result.Leased(next, won));
    }

    /** An item's time left in seconds, a second begun counting as a whole one: as memcached's {@code t} says it. */
    public static long secondsLeft(Item item, long nowMillis) {
        return secondsLeft(item.expiresAt(), nowMillis);
    }

    /** The seconds left until {@code expiresAt} (not {@link Item#NEVER}), as {@link #secondsLeft(Item, long)}. */
    public static long secondsLeft(long expiresAt, long nowMillis) {
        return Math.max(0, (expiresAt - nowMillis + 999) / 1000);
    }

    private static ItemTransition applyArithmetic(Operation.Arithmetic op, Item live, long nowMillis,
                                                  LongSupplier newCas) {
        if (live == null) {
            if (!op.createIfMissing()) {
                return fail(Status.NOT_FOUND);
            }
            // A CAS does not stop the creation: there is nothing to compare with, and memcached creates too.
            long cas = newCas.getAsLong();
            Item created = new Item(decimal(op.initial()), 0, cas, op.expiresAt());
            Result result = new Result.Number(op.initial(), cas, op.expiresAt());
            return created.isExpiredAt(nowMillis)
                    ? new ItemTransition(Effect.REMOVE, null, result)
                    : new ItemTransition(Effect.PUT, created, result);
        }
        if (op.cas() != 0 && op.cas() != live.cas()) {
            return fail(Status.EXISTS);
        }
        long number;
        try {
            number = parseUnsigned(live.value());
        } catch (NumberFormatException e) {
            return fail(Status.NON_NUMERIC);
        }
        long updated;
        if (op.increment()) {
            updated = number + op.delta(); // wraps at 2^64, as memcached does
        } else {
            updated = Long.compareUnsigned(number, op.delta()) < 0 ? 0 : number - op.delta();
        }
        long cas = newCas.getAsLong();
        byte[] digits = decimal(updated);
        // memcached writes a number no longer than the value in its place, keeping the item's lease; a longer one
        // is a new item.
        Lease lease = digits.length <= live.value().length ? live.lease() : Lease.NONE;
        long expiresAt = op.touchExpiresAt() == null ? live.expiresAt() : op.touchExpiresAt();
        Item next = new Item(padded(digits, live.value().length), live.flags(), cas, expiresAt, lease);
        Result result = new Result.Number(updated, cas, expiresAt);
        // A new expiry in the past leaves no item, as a touch with one does; the number is answered all the same.
        return next.isExpiredAt(nowMillis) ? new ItemTransition(Effect.REMOVE, null, result)
                : new ItemTransition(Effect.PUT, next, result);
    }

    /**
     * Reads a value as an unsigned 64-bit decimal number the way memcached does (strtoull): leading white space
     * and a {@code +} are allowed, then ASCII digits (leading zeros included), then the end or white space (after
     * which anything is ignored: memcached pads a value that shrank with spaces).
     *
     * @throws NumberFormatException when the value is not such a number or exceeds 2^64-1
     */
    public static long parseUnsigned(byte[] value) {
        int start = 0;
        while (start < value.length && isSpace(value[start])) {
            start++;
        }
        if (start < value.length && value[start] == '+') {
            start++;
        }
        int end = start;
        while (end < value.length && value[end] >= '0' && value[end] <= '9') {
            end++;
        }
        boolean terminated = end == value.length || isSpace(value[end]);
        if (end == start || !terminated) {
            throw new NumberFormatException("not an unsigned 64-bit decimal number");
        }
        return Long.parseUnsignedLong(new String(value, start, end - start, StandardCharsets.US_ASCII));
    }

    private static boolean isSpace(byte b) {
        return b == ' ' || b == '\t' || b == '\n' || b == 0x0b || b == '\f' || b == '\r';
    }

    /**
     * As memcached stores the result of incr and decr: a number no longer than the value it replaces takes its place,
     * padded with spaces to that value's length ({@code 100} decremented by 1 reads {@code "99 "}).
     */
    private static byte[] padded(byte[] digits, int replacedLength) {
        if (digits.length >= replacedLength) {
            return digits;
        }
        byte[] padded = Arrays.copyOf(digits, replacedLength);
        Arrays.fill(padded, digits.length, replacedLength, (byte) ' ');
        return padded;
    }

    private static byte[] decimal(long unsigned) {
        return Long.toUnsignedString(unsigned).getBytes(StandardCharsets.US_ASCII);
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] out = new byte[a.length + b.length];
        System.arraycopy(a, 0, out, 0, a.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    /** NOT_FOUND without an item, EXISTS when a CAS is given and is not the item's; null when neither. */
    private static ItemTransition refusedByCas(Item live, long cas) {
        if (live == null) {
            return fail(Status.NOT_FOUND);
        }
        return cas != 0 && cas != live.cas() ? fail(Status.EXISTS) : null;
    }

    private static ItemTransition fail(Status status) {
        return new ItemTransition(Effect.NONE, null, Result.failure(status));
    }

    private static ItemTransition answer(Result result) {
        return new ItemTransition(Effect.NONE, null, result);
    }
}
