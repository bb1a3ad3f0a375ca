package kvgate.spi;

import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * One request of the common operation stream. Every protocol request becomes one or more operations; a backend
 * executes them and completes each with a {@link Result}.
 *
 * <p>The set of operations is closed: code that must handle every kind implements {@link Visitor}, so adding an
 * operation shows every place that must learn about it at compile time.
 *
 * <p>Byte arrays in operations (keys, values) belong to the operation and must not be modified by anyone.
 * Expiry times are absolute, in milliseconds since the Unix epoch, {@link Item#NEVER} for none; the translators
 * turn each protocol's relative or absolute form into this one, so backends never see protocol conventions.
 */
public sealed interface Operation {

    /** Where the operation's keys live. */
    Namespace namespace();

    /** Calls the visitor method for this kind of operation. */
    <R> R accept(Visitor<R> visitor);

    /** An operation on one key. {@link ItemTransition} defines what each does to the item under that key. */
    sealed interface KeyOperation extends Operation {
        /** The key, 1 to 250 bytes in the common case; backends must accept any non-empty byte sequence. */
        byte[] key();

        /**
         * The CAS the client chose for the item this operation writes (memcached's meta {@code E}), or 0 for one the
         * backend picks. Only a backend declaring {@link Capability#CHOSEN_CAS} receives an operation with one;
         * {@link ItemTransition} gives it to the item it writes.
         */
        default long chosenCas() {
            return 0;
        }
    }

    /** Reads one item. Completes with {@link Result.Value}, or {@link Status#NOT_FOUND}. */
    record Get(Namespace namespace, byte[] key) implements KeyOperation {
        @Override
        public <R> R accept(Visitor<R> visitor) {
            return visitor.get(this);
        }
    }

    /**
     * Stores an item. Completes with {@link Result.Stored} carrying the new CAS.
     *
     * @param mode what the item already there must be
     * @param value the bytes to store (or to append / prepend)
     * @param flags client flags for a new item; ignored by append and prepend, which keep the old ones
     * @param expiresAt absolute expiry; ignored by append and prepend, which keep the old one
     * @param cas 0, or the CAS the existing item must have: a mismatch is {@link Status#EXISTS}, a missing item
     *     {@link Status#NOT_FOUND}
     * @param keepExpiry whether an item already there keeps its own expiry, {@code expiresAt} then applying only to
     *     an item created here (Couchbase's Preserve TTL); only a backend declaring {@link Capability#KEEP_EXPIRY}
     *     receives such a store, others are answered {@link Status#UNSUPPORTED} without being asked
     * @param staleIfOlder with {@link StoreMode#SET} or {@link StoreMode#REPLACE} and a {@code cas}: a {@code cas}
     *     older (smaller) than the item's stores the value all the same, marked {@link Lease#STALE} and keeping the
     *     item's expiry and whether its lease was handed out (memcached's {@code ms} with {@code I}: a late writer's
     *     value, kept until the winner recaches); only a backend declaring {@link Capability#LEASES} receives such a
     *     store
     * @param chosenCas 0, or the CAS the stored item gets ({@link KeyOperation#chosenCas()})
     */
    record Store(Namespace namespace, byte[] key, StoreMode mode, byte[] value, int flags, long expiresAt, long cas,
                 boolean keepExpiry, boolean staleIfOlder, long chosenCas) implements KeyOperation {
        /** A store whose item gets a CAS the backend picks. */
        public Store(Namespace namespace, byte[] key, StoreMode mode, byte[] value, int flags, long expiresAt,
                     long cas, boolean keepExpiry, boolean staleIfOlder) {
            this(namespace, key, mode, value, flags, expiresAt, cas, keepExpiry, staleIfOlder, 0);
        }

        /** A store that does not keep stale values. */
        public Store(Namespace namespace, byte[] key, StoreMode mode, byte[] value, int flags, long expiresAt,
                     long cas, boolean keepExpiry) {
            this(namespace, key, mode, value, flags, expiresAt, cas, keepExpiry, false);
        }

        /** A store whose {@code expiresAt} applies to the item whether or not one was there. */
        public Store(Namespace namespace, byte[] key, StoreMode mode, byte[] value, int flags, long expiresAt,
                     long cas) {
            this(namespace, key, mode, value, flags, expiresAt, cas, false);
        }

        @Override
        public <R> R accept(Visitor<R> visitor) {
            return visitor.store(this);
        }
    }

    /**
     * memcached's meta get on a backend keeping leases ({@link Capability#LEASES}): reads the item and may hand out
     * the right to recache it. A stale item's lease goes to the first get after it was marked; with
     * {@code recacheWithinMillis}, the lease of an item expiring sooner than that goes to the first get that sees it
     * so; with {@code vivifyExpiresAt}, a missing item is created empty (flags 0) with that expiry, and its lease
     * goes to this get. Completes with {@link Result.Leased}, or {@link Status#NOT_FOUND} for a missing item not
     * created.
     *
     * @param touchExpiresAt null, or a new expiry for an item found (as {@link Touch})
     * @param vivifyExpiresAt null, or the expiry of the empty item created when none is found
     * @param recacheWithinMillis null, or how near its expiry an item found must be for this get to win its lease:
     *     its time left, a second begun counting as a whole one (as memcached counts it), under this
     * @param chosenCas 0, or the CAS of the empty item created ({@link KeyOperation#chosenCas()})
     */
    record LeaseGet(Namespace namespace, byte[] key, Long touchExpiresAt, Long vivifyExpiresAt,
                    Long recacheWithinMillis, long chosenCas) implements KeyOperation {
        /** A lease get whose created item gets a CAS the backend picks. */
        public LeaseGet(Namespace namespace, byte[] key, Long touchExpiresAt, Long vivifyExpiresAt,
                        Long recacheWithinMillis) {
            this(namespace, key, touchExpiresAt, vivifyExpiresAt, recacheWithinMillis, 0);
        }

        /**
         * Whether the get changes nothing but the item's lease: no touch, no placeholder. Such a get may be answered
         * again elsewhere (a failover, a retry) as a read may; at worst a lease handed out where the answer was lost
         * tells the next clients that another has it until the item is written.
         */
        public boolean readsOnly() {
            return touchExpiresAt == null && vivifyExpiresAt == null;
        }

        @Override
        public <R> R accept(Visitor<R> visitor) {
            return visitor.leaseGet(this);
        }
    }

    /**
     * Marks an item stale instead of removing it (memcached's {@code md} with {@code I}), on a backend keeping
     * leases ({@link Capability#LEASES}): the item gets a new CAS, its lease is {@link Lease#STALE} (not handed out,
     * so the next {@link LeaseGet} wins it), and it keeps its value and flags. Completes with
     * {@link Result.Stored} carrying the new CAS, {@link Status#NOT_FOUND}, or {@link Status#EXISTS}.
     *
     * @param cas 0, or the CAS the existing item must have
     * @param expiresAt null, or a new expiry: how long the stale item may still be served
     * @param chosenCas 0, or the stale item's new CAS ({@link KeyOperation#chosenCas()})
     */
    record Invalidate(Namespace namespace, byte[] key, long cas, Long expiresAt, long chosenCas)
            implements KeyOperation {
        /** An invalidation giving the item a CAS the backend picks. */
        public Invalidate(Namespace namespace, byte[] key, long cas, Long expiresAt) {
            this(namespace, key, cas, expiresAt, 0);
        }

        @Override
        public <R> R accept(Visitor<R> visitor) {
            return visitor.invalidate(this);
        }
    }

    /**
     * Removes an item. Completes with {@link Result.Removed} carrying the removed item where the backend can tell
     * (null where it cannot: memcached's delete does not return it), or {@link Status#NOT_FOUND}. A caller that must
     * answer with the removed value reads it first and deletes with its CAS.
     *
     * @param cas 0, or the CAS the existing item must have ({@link Status#EXISTS} otherwise)
     */
    record Delete(Namespace namespace, byte[] key, long cas) implements KeyOperation {
        @Override
        public <R> R accept(Visitor<R> visitor) {
            return visitor.delete(this);
        }
    }

    /**
     * Adds to or subtracts from an item whose value is an unsigned 64-bit decimal number. Increment wraps at
     * 2^64; decrement stops at 0. A value that is not such a number is {@link Status#NON_NUMERIC}. Completes with
     * {@link Result.Number} carrying the new value (unsigned), CAS and expiry.
     *
     * @param increment true to add, false to subtract
     * @param delta the unsigned amount
     * @param initial the unsigned value stored, as is, when the key is missing and {@code createIfMissing}
     * @param createIfMissing whether a missing key is created with {@code initial}; otherwise it is
     *     {@link Status#NOT_FOUND}
     * @param expiresAt the expiry of an item created here
     * @param cas 0, or the CAS the existing item must have
     * @param touchExpiresAt null, for an existing item to keep its own expiry; or the expiry it gets with its new
     *     number (memcached's {@code ma} with {@code T}); only a backend declaring
     *     {@link Capability#ARITHMETIC_EXPIRY} receives one, others are answered {@link Status#UNSUPPORTED} without
     *     being asked
     * @param chosenCas 0, or the counter's new CAS ({@link KeyOperation#chosenCas()})
     */
    record Arithmetic(Namespace namespace, byte[] key, boolean increment, long delta, long initial,
                      boolean createIfMissing, long expiresAt, long cas, Long touchExpiresAt, long chosenCas)
            implements KeyOperation {
        /** Arithmetic whose counter gets a CAS the backend picks. */
        public Arithmetic(Namespace namespace, byte[] key, boolean increment, long delta, long initial,
                          boolean createIfMissing, long expiresAt, long cas, Long touchExpiresAt) {
            this(namespace, key, increment, delta, initial, createIfMissing, expiresAt, cas, touchExpiresAt, 0);
        }

        /** Arithmetic that leaves an existing item's expiry as it is. */
        public Arithmetic(Namespace namespace, byte[] key, boolean increment, long delta, long initial,
                          boolean createIfMissing, long expiresAt, long cas) {
            this(namespace, key, increment, delta, initial, createIfMissing, expiresAt, cas, null);
        }

        @Override
        public <R> R accept(Visitor<R> visitor) {
            return visitor.arithmetic(this);
        }
    }

    /**
     * Sets a new expiry on an existing item without changing its value, flags or CAS. Completes with
     * {@link Result.Value} carrying the touched item (so get-and-touch needs no second read), or
     * {@link Status#NOT_FOUND}.
     */
    record Touch(Namespace namespace, byte[] key, long expiresAt) implements KeyOperation {
        @Override
        public <R> R accept(Visitor<R> visitor) {
            return visitor.touch(this);
        }
    }

    /**
     * Removes every item of the namespace. A delay is handled by the gateway (it sends the flush when the delay is
     * over), so a backend only ever sees {@code delayMillis == 0}. Completes with {@link Result.Done}.
     */
    record Flush(Namespace namespace, long delayMillis) implements Operation {
        @Override
        public <R> R accept(Visitor<R> visitor) {
            return visitor.flush(this);
        }
    }

    /**
     * Lists the live items of a namespace, in no particular order (MPDB's GETBUCKET). Completes with
     * {@link Result.Entries}, or {@link Status#TOO_LARGE} when the namespace holds more than {@code limit} items.
     * A backend declaring {@link Capability#SCAN} lists them itself; for others the gateway keeps a key directory of
     * what was stored through it.
     *
     * <p>An exhaustive scan (a migration's backfill) must find every item the store holds, whoever wrote it, however
     * costly the listing: it is offered to every backend first, and one that cannot list its store answers
     * {@link Status#UNSUPPORTED}, after which the key directory answers. The memcached backend lists its servers'
     * items this way ({@code lru_crawler metadump}), items' expiries included.
     *
     * @param limit the most items the caller can use, at least 1
     * @param exhaustive whether every item the store holds must be found, not only those stored through a gateway
     */
    record Scan(Namespace namespace, int limit, boolean exhaustive) implements Operation {
        public Scan {
            if (limit < 1) {
                throw new IllegalArgumentException("limit must be at least 1, not " + limit);
            }
        }

        /** A scan for a protocol's request: the store's cheapest complete listing of what gateways stored. */
        public Scan(Namespace namespace, int limit) {
            this(namespace, limit, false);
        }

        @Override
        public <R> R accept(Visitor<R> visitor) {
            return visitor.scan(this);
        }
    }

    /**
     * Adds {@code key} to the key list of each tag (okuyama's tags). A key already listed stays once, in its first
     * place. Tags name keys, not values: removing or overwriting the key's item leaves its tags alone. Completes
     * with {@link Result.Done}. Only a backend declaring {@link Capability#TAGS} receives the tag operations.
     */
    record Tag(Namespace namespace, byte[] key, List<byte[]> tags) implements Operation {
        public Tag {
            tags = List.copyOf(tags);
        }

        @Override
        public <R> R accept(Visitor<R> visitor) {
            return visitor.tag(this);
        }
    }

    /**
     * Takes {@code key} off the key list of {@code tag}. Completes with {@link Result.Done}, or
     * {@link Status#NOT_FOUND} when the tag did not list the key.
     */
    record Untag(Namespace namespace, byte[] key, byte[] tag) implements Operation {
        @Override
        public <R> R accept(Visitor<R> visitor) {
            return visitor.untag(this);
        }
    }

    /**
     * Removes every tag of the namespace, so that afterwards no tag names any key (okuyama's truncate, which empties
     * a keyspace with its tags). Completes with {@link Result.Done}.
     */
    record DropTags(Namespace namespace) implements Operation {
        @Override
        public <R> R accept(Visitor<R> visitor) {
            return visitor.dropTags(this);
        }
    }

    /**
     * Lists the keys of a tag, in the order they were first tagged. Completes with {@link Result.Keys}, empty for
     * an unknown tag.
     *
     * @param includeRemoved whether keys whose item was removed (or expired) since they were tagged are listed;
     *     when false only keys with a live item are
     */
    record TaggedKeys(Namespace namespace, byte[] tag, boolean includeRemoved) implements Operation {
        @Override
        public <R> R accept(Visitor<R> visitor) {
            return visitor.taggedKeys(this);
        }
    }

    /**
     * Adds {@code key} to the full-text index of its namespace under each of {@code terms}, within the index group
     * {@code group} ("" for none). The gateway cuts the terms from the value (okuyama's n-grams), so a backend keeps
     * only which keys each term names. Completes with {@link Result.Done}. The index may keep stale entries for
     * values overwritten or removed since: {@link Search} answers only keys whose current value holds the words.
     * Only a backend declaring {@link Capability#SEARCH} receives the search operations.
     */
    record Index(Namespace namespace, byte[] key, Set<String> terms, String group) implements Operation {
        public Index {
            terms = Collections.unmodifiableSet(new LinkedHashSet<>(terms)); // in the order cut
        }

        @Override
        public <R> R accept(Visitor<R> visitor) {
            return visitor.index(this);
        }
    }

    /**
     * Takes {@code key} off the full-text index of its namespace under each of {@code terms}, within index group
     * {@code group} (okuyama's removeSearchIndex): a search no longer finds the key by those terms, whatever its
     * value holds. Completes with {@link Result.Done}, also when the index did not name the key. A backend
     * declaring {@link Capability#SEARCH} receives it; so does one without, whose store may keep an index of its own
     * (as {@link Search}).
     *
     * @param gramLength the longest run of characters the terms were cut to, as the protocol asked (okuyama's
     *     index length), for a store that keeps an index of its own; 0 when the protocol named none
     */
    record Unindex(Namespace namespace, byte[] key, Set<String> terms, String group, int gramLength)
            implements Operation {
        public Unindex {
            terms = Collections.unmodifiableSet(new LinkedHashSet<>(terms));
        }

        /** An unindex whose protocol named no n-gram length. */
        public Unindex(Namespace namespace, byte[] key, Set<String> terms, String group) {
            this(namespace, key, terms, group, 0);
        }

        @Override
        public <R> R accept(Visitor<R> visitor) {
            return visitor.unindex(this);
        }
    }

    /**
     * Finds the keys of the namespace (within index group {@code group}, "" for none) whose current value, as
     * UTF-8 text, contains all of {@code words} ({@code all}) or any of them. A key is a candidate for a word when
     * the index names it under every one of the word's terms (which the gateway cut as it cut the indexed values'),
     * and a hit when its current value {@linkplain #matches matches}. Completes with {@link Result.Keys}, empty when
     * nothing matches.
     *
     * <p>A backend without {@link Capability#SEARCH} receives it too, as it does an exhaustive {@link Scan}: a store
     * that keeps a full-text index its own clients wrote (an okuyama cluster's) answers the keys that index finds,
     * which join the gateway's; one that keeps none answers {@link Status#UNSUPPORTED}.
     *
     * @param gramLength the n-gram length the protocol asked for (okuyama's index length), for a store that keeps an
     *     index of its own; 0 when the protocol named none
     */
    record Search(Namespace namespace, List<Word> words, boolean all, String group, int gramLength)
            implements Operation {
        public Search {
            words = List.copyOf(words);
            if (words.isEmpty()) {
                throw new IllegalArgumentException("a search needs words");
            }
        }

        /** A search whose protocol named no n-gram length. */
        public Search(Namespace namespace, List<Word> words, boolean all, String group) {
            this(namespace, words, all, group, 0);
        }

        /** A word searched for, and the index terms it is looked up by (at least one). */
        public record Word(String text, Set<String> terms) {
            public Word {
                terms = Collections.unmodifiableSet(new LinkedHashSet<>(terms));
                if (terms.isEmpty()) {
                    throw new IllegalArgumentException("a word is looked up by at least one term");
                }
            }
        }

        /** Whether {@code text} (a current value) holds all of the words, or any of them: what a hit must do. */
        public boolean matches(String text) {
            for (Word word : words) {
                boolean found = text.contains(word.text());
                if (found != all) {
                    return found;
                }
            }
            return all;
        }

        @Override
        public <R> R accept(Visitor<R> visitor) {
            return visitor.search(this);
        }
    }

    /**
     * An operation on the distributed resource counters of the counter protocol (the yrmcds extension). The gateway
     * sends these only to the counter store, a backend declaring {@link Capability#COUNTERS}; a data backend never
     * receives one. Counter names are 1 to 65535 bytes; amounts are unsigned 32-bit numbers held in a long, and
     * sums are computed in 64 bits so they cannot wrap.
     *
     * <p>The store keeps the ledger of who holds what: an {@code owner} is one client connection, named uniquely
     * among every gateway sharing the store. Keeping the ledger in the store, applied in operation order, is what
     * makes a pipelined acquire-then-release of one connection judge the release correctly.
     */
    sealed interface CounterOperation extends Operation {
        /** The client connection on whose behalf the operation runs. */
        String owner();
    }

    /**
     * Takes {@code resources} from a counter for {@code owner}: a missing counter is created with consumption
     * {@code resources}; otherwise the consumption grows by {@code resources} when the sum stays within
     * {@code maximum}, else {@link Status#LIMIT_REACHED}. Completes with {@link Result.Number} carrying the
     * resources acquired.
     *
     * @param resources 1 to 2^32-1
     * @param maximum the capacity, at least {@code resources}; each request states it anew
     */
    record Acquire(Namespace namespace, byte[] name, long resources, long maximum, String owner)
            implements CounterOperation {
        @Override
        public <R> R accept(Visitor<R> visitor) {
            return visitor.acquire(this);
        }
    }

    /**
     * Gives back {@code resources} that {@code owner} acquired, lowering the counter's consumption. A missing
     * counter is {@link Status#NOT_FOUND}; releasing more than the owner holds of it, or anything of a counter the
     * owner never acquired (even 0), is {@link Status#NOT_HELD}. Completes with {@link Result.Done}.
     */
    record Release(Namespace namespace, byte[] name, long resources, String owner) implements CounterOperation {
        @Override
        public <R> R accept(Visitor<R> visitor) {
            return visitor.release(this);
        }
    }

    /** Gives back everything {@code owner} holds: its connection closed. Completes with {@link Result.Done}. */
    record ReleaseAll(Namespace namespace, String owner) implements CounterOperation {
        @Override
        public <R> R accept(Visitor<R> visitor) {
            return visitor.releaseAll(this);
        }
    }

    /** Reads a counter. Completes with {@link Result.Number} carrying the consumption, or {@link Status#NOT_FOUND}. */
    record ReadCounter(Namespace namespace, byte[] name, String owner) implements CounterOperation {
        @Override
        public <R> R accept(Visitor<R> visitor) {
            return visitor.readCounter(this);
        }
    }

    /** Lists every counter of the namespace. Completes with {@link Result.Counters}. */
    record DumpCounters(Namespace namespace, String owner) implements CounterOperation {
        @Override
        public <R> R accept(Visitor<R> visitor) {
            return visitor.dumpCounters(this);
        }
    }

    /**
     * One method per kind of operation; see {@link Operation#accept(Visitor)}. The methods for leases, scans, tags,
     * search and counters have defaults that refuse, because only a backend declaring the matching {@link Capability}
     * ever receives those operations; such a backend overrides them.
     */
    interface Visitor<R> {
        R get(Get get);

        R store(Store store);

        R delete(Delete delete);

        R arithmetic(Arithmetic arithmetic);

        R touch(Touch touch);

        R flush(Flush flush);

        default R leaseGet(LeaseGet leaseGet) {
            throw new UnsupportedOperationException("lease operations go to a backend with Capability.LEASES");
        }

        default R invalidate(Invalidate invalidate) {
            throw new UnsupportedOperationException("lease operations go to a backend with Capability.LEASES");
        }

        default R scan(Scan scan) {
            throw new UnsupportedOperationException("scans go to a backend with Capability.SCAN");
        }

        default R tag(Tag tag) {
            throw new UnsupportedOperationException("tag operations go to a backend with Capability.TAGS");
        }

        default R untag(Untag untag) {
            throw new UnsupportedOperationException("tag operations go to a backend with Capability.TAGS");
        }

        default R dropTags(DropTags dropTags) {
            throw new UnsupportedOperationException("tag operations go to a backend with Capability.TAGS");
        }

        default R taggedKeys(TaggedKeys taggedKeys) {
            throw new UnsupportedOperationException("tag operations go to a backend with Capability.TAGS");
        }

        default R index(Index index) {
            throw new UnsupportedOperationException("search operations go to a backend with Capability.SEARCH");
        }

        default R unindex(Unindex unindex) {
            throw new UnsupportedOperationException("search operations go to a backend with Capability.SEARCH");
        }

        default R search(Search search) {
            throw new UnsupportedOperationException("search operations go to a backend with Capability.SEARCH");
        }

        default R acquire(Acquire acquire) {
            throw new UnsupportedOperationException("counter operations go to a backend with Capability.COUNTERS");
        }

        default R release(Release release) {
            throw new UnsupportedOperationException("counter operations go to a backend with Capability.COUNTERS");
        }

        default R releaseAll(ReleaseAll releaseAll) {
            throw new UnsupportedOperationException("counter operations go to a backend with Capability.COUNTERS");
        }

        default R readCounter(ReadCounter read) {
            throw new UnsupportedOperationException("counter operations go to a backend with Capability.COUNTERS");
        }

        default R dumpCounters(DumpCounters dump) {
            throw new UnsupportedOperationException("counter operations go to a backend with Capability.COUNTERS");
        }
    }

    /**
     * Whether the operation reads one item and changes none of its value, flags or expiry: a {@link Get}, or a
     * {@link LeaseGet} that {@linkplain LeaseGet#readsOnly() only reads} (it changes the item's lease at most). Route
     * nodes and retries may treat it as a read.
     */
    static boolean readsItem(Operation operation) {
        return operation instanceof Get || operation instanceof LeaseGet get && get.readsOnly();
    }

    /** Whether this operation belongs to the counter store rather than the data backend. */
    static boolean isCounterOperation(Operation operation) {
        return operation instanceof CounterOperation;
    }
}
