package kvgate.metrics;

import java.util.Locale;
import kvgate.spi.Operation;
import kvgate.spi.StoreMode;

/** The operation names meters are counted under: memcached's command names, which operators know. */
public enum Verb {
    GET, SET, ADD, REPLACE, APPEND, PREPEND, CAS, DELETE, INCR, DECR, TOUCH, FLUSH,
    /** Counter protocol verbs. */
    ACQUIRE, RELEASE, RELEASE_ALL, COUNTER_GET, DUMP,
    /** Scans, tags and full-text search (MPDB, okuyama). */
    SCAN, TAG, UNTAG, TAG_KEYS, DROP_TAGS, INDEX, UNINDEX, SEARCH;

    private static final Operation.Visitor<Verb> OF = new Operation.Visitor<>() {
        @Override
        public Verb get(Operation.Get get) {
            return GET;
        }

        @Override
        public Verb store(Operation.Store store) {
            if (store.cas() != 0) {
                return CAS;
            }
            StoreMode mode = store.mode();
            return switch (mode) {
                case SET -> SET;
                case ADD -> ADD;
                case REPLACE -> REPLACE;
                case APPEND -> APPEND;
                case PREPEND -> PREPEND;
            };
        }

        @Override
        public Verb delete(Operation.Delete delete) {
            return DELETE;
        }

        @Override
        public Verb arithmetic(Operation.Arithmetic arithmetic) {
            return arithmetic.increment() ? INCR : DECR;
        }

        @Override
        public Verb touch(Operation.Touch touch) {
            return TOUCH;
        }

        @Override
        public Verb leaseGet(Operation.LeaseGet get) {
            // memcached counts a meta get that touches among its touches
            return get.touchExpiresAt() == null ? GET : TOUCH;
        }

        @Override
        public Verb invalidate(Operation.Invalidate invalidate) {
            return DELETE;
        }

        @Override
        public Verb flush(Operation.Flush flush) {
            return FLUSH;
        }

        @Override
        public Verb scan(Operation.Scan scan) {
            return SCAN;
        }

        @Override
        public Verb tag(Operation.Tag tag) {
            return TAG;
        }

        @Override
        public Verb untag(Operation.Untag untag) {
            return UNTAG;
        }

        @Override
        public Verb taggedKeys(Operation.TaggedKeys taggedKeys) {
            return TAG_KEYS;
        }

        @Override
        public Verb dropTags(Operation.DropTags dropTags) {
            return DROP_TAGS;
        }

        @Override
        public Verb index(Operation.Index index) {
            return INDEX;
        }

        @Override
        public Verb unindex(Operation.Unindex unindex) {
            return UNINDEX;
        }

        @Override
        public Verb search(Operation.Search search) {
            return SEARCH;
        }

        @Override
        public Verb acquire(Operation.Acquire acquire) {
            return ACQUIRE;
        }

        @Override
        public Verb release(Operation.Release release) {
            return RELEASE;
        }

        @Override
        public Verb releaseAll(Operation.ReleaseAll releaseAll) {
            return RELEASE_ALL;
        }

        @Override
        public Verb readCounter(Operation.ReadCounter read) {
            return COUNTER_GET;
        }

        @Override
        public Verb dumpCounters(Operation.DumpCounters dump) {
            return DUMP;
        }
    };

    public static Verb of(Operation operation) {
        return operation.accept(OF);
    }

    /** The tag value: the lower-case name. */
    public String tag() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** Whether this verb stores an item (memcached's {@code cmd_set}). */
    public boolean stores() {
        return this == SET || this == ADD || this == REPLACE || this == APPEND || this == PREPEND || this == CAS;
    }
}
