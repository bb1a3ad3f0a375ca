package kvgate.mpdb;

import java.util.List;
import java.util.Map;

/** What one request datagram holds, as far as the codec could read it. */
public sealed interface MpdbDatagram {

    /** The operations of the protocol, by their {@code oper} names. */
    enum Oper { PERSIST, GETPERSIST, INSERT, GET, GETBUCKET }

    /** A datagram with an echo tag: it takes its place in the client's order and gets a reply. */
    sealed interface Numbered extends MpdbDatagram {
        long echo();

        /** The {@code nodeid} field, returned in the reply; null when the request had none. */
        Long nodeid();
    }

    /**
     * A well-formed request.
     *
     * @param data for PERSIST and INSERT: the pairs to store, as given (keys not yet split)
     * @param keys for GETPERSIST and GET: the keys asked for, duplicates removed
     * @param collection for GETBUCKET: the collection asked for
     */
    record Request(Oper oper, long echo, Long nodeid, Map<String, MpdbValue> data, List<String> keys,
                   String collection) implements Numbered {
    }

    /** A request that cannot be carried out; {@code error} says why, and is the reply's error. */
    record Invalid(long echo, Long nodeid, String error) implements Numbered {
    }

    /** A datagram with no echo tag to answer to: dropped and counted under {@code reason}. */
    record Unreadable(String reason) implements MpdbDatagram {
        public static final String NOT_MSGPACK = "not_msgpack";
        public static final String NOT_A_MAP = "not_a_map";
        public static final String NO_ECHO = "no_echo";
        public static final String OVERSIZED = "oversized";
    }
}
