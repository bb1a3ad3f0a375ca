package kvgate.spi;

import java.util.List;

/**
 * How an {@link Operation} ended. Success comes in one shape per kind of operation; every failure is a
 * {@link Failure} with a {@link Status} from the common vocabulary, which each protocol maps to its own reply.
 */
public sealed interface Result {

    /** {@link Status#OK} for every success shape; the failure's status for {@link Failure}. */
    Status status();

    /** Whether the operation succeeded. */
    default boolean ok() {
        return status() == Status.OK;
    }

    /** The item read (get) or touched (touch). */
    record Value(Item item) implements Result {
        @Override
        public Status status() {
            return Status.OK;
        }
    }

    /**
     * A {@link Operation.LeaseGet}'s item, as the get left it (created, touched, handed out).
     *
     * @param won whether this get won the right to recache the item: the lease was handed out to it
     */
    record Leased(Item item, boolean won) implements Result {
        @Override
        public Status status() {
            return Status.OK;
        }
    }

    /** The item was stored and now has this CAS. */
    record Stored(long cas) implements Result {
        @Override
        public Status status() {
            return Status.OK;
        }
    }

    /** The item was removed; this is what it held, or null when the backend cannot tell. */
    record Removed(Item previous) implements Result {
        @Override
        public Status status() {
            return Status.OK;
        }
    }

    /**
     * The arithmetic result: the new unsigned value and the item's new CAS and expiry. The yrmcds counters give
     * their resources, with CAS 0.
     *
     * @param expiresAt the item's expiry after the arithmetic, as {@link Item#expiresAt()}: told by a backend
     *     declaring {@link Capability#ARITHMETIC_EXPIRY}; {@link Item#NEVER} from others, which may not know it
     */
    record Number(long value, long cas, long expiresAt) implements Result {
        /** A result that does not tell the item's expiry. */
        public Number(long value, long cas) {
            this(value, cas, Item.NEVER);
        }

        @Override
        public Status status() {
            return Status.OK;
        }
    }

    /** The items of a namespace (scan). */
    record Entries(List<Entry> entries) implements Result {
        public Entries {
            entries = List.copyOf(entries);
        }

        @Override
        public Status status() {
            return Status.OK;
        }
    }

    /** One item of a scan, with its key. */
    record Entry(byte[] key, Item item) {
    }

    /** Keys found (a tag's keys, search hits). */
    record Keys(List<byte[]> keys) implements Result {
        public Keys {
            keys = List.copyOf(keys);
        }

        @Override
        public Status status() {
            return Status.OK;
        }
    }

    /** Every counter of a namespace (dump). */
    record Counters(List<CounterState> counters) implements Result {
        public Counters {
            counters = List.copyOf(counters);
        }

        @Override
        public Status status() {
            return Status.OK;
        }
    }

    /**
     * One counter as a dump shows it.
     *
     * @param consumption the resources held now
     * @param maxInInterval the highest consumption in the current statistics interval
     */
    record CounterState(byte[] name, long consumption, long maxInInterval) {
    }

    /** The operation succeeded and has nothing to report (flush, release). */
    record Done() implements Result {
        @Override
        public Status status() {
            return Status.OK;
        }
    }

    /**
     * The operation failed.
     *
     * @param status never {@link Status#OK}
     * @param message for operators' logs and protocols that carry text; may be empty, never null
     */
    record Failure(Status status, String message) implements Result {
        public Failure {
            if (status == null || status == Status.OK) {
                throw new IllegalArgumentException("a failure needs a failing status, not " + status);
            }
            if (message == null) {
                message = "";
            }
        }
    }

    Done DONE = new Done();

    static Failure failure(Status status) {
        return new Failure(status, "");
    }

    static Failure failure(Status status, String message) {
        return new Failure(status, message);
    }

    /** A {@link Status#BACKEND_ERROR} standing for an exception: its message, or its class when it has none. */
    static Failure backendError(Throwable error) {
        String message = error.getMessage();
        return new Failure(Status.BACKEND_ERROR, message == null ? error.getClass().getSimpleName() : message);
    }
}
