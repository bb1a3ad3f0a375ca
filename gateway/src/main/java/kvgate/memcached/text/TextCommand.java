package kvgate.memcached.text;

import java.util.List;

/**
 * One request of memcached's text protocol, as {@link TextDecoder} reads it: a command whose line (and data block)
 * parsed, or the error reply memcached gives a line that did not.
 */
public sealed interface TextCommand {

    /** Whether the client asked for no reply ({@code noreply}): memcached then hides errors too. */
    default boolean noreply() {
        return false;
    }

    /** The storage commands, by the rule each applies to the item already there. */
    enum StoreVerb {
        SET, ADD, REPLACE, APPEND, PREPEND, CAS
    }

    /**
     * {@code set}, {@code add}, {@code replace}, {@code append}, {@code prepend} or {@code cas} with its data block.
     *
     * @param exptime memcached's expiry field, as the client sent it (relative seconds, a Unix time, or negative)
     * @param cas the compare-and-swap unique of {@code cas}; 0 for the others
     */
    record Store(StoreVerb verb, byte[] key, int flags, int exptime, byte[] data, long cas, boolean noreply)
            implements TextCommand {
    }

    /**
     * A storage command whose value is larger than the gateway stores: its data block is skipped as it arrives, and
     * a {@code set} removes the key, as memcached does, so that the old value is not read as if current.
     */
    record TooLarge(StoreVerb verb, byte[] key, boolean noreply) implements TextCommand {
    }

    /**
     * {@code get}, {@code gets}, {@code gat} or {@code gats}.
     *
     * @param withCas whether each value line carries its CAS unique ({@code gets}, {@code gats})
     * @param touch whether each hit's expiry becomes {@code exptime} ({@code gat}, {@code gats})
     */
    record Retrieve(List<byte[]> keys, boolean withCas, boolean touch, int exptime) implements TextCommand {
    }

    record Delete(byte[] key, boolean noreply) implements TextCommand {
    }

    record Arithmetic(byte[] key, boolean increment, long delta, boolean noreply) implements TextCommand {
    }

    record Touch(byte[] key, int exptime, boolean noreply) implements TextCommand {
    }

    /** {@code flush_all [delay] [noreply]}; {@code exptime} is 0 without a delay. */
    record FlushAll(int exptime, boolean noreply) implements TextCommand {
    }

    /** {@code stats [group...]}: the words after {@code stats}. */
    record Stats(List<String> arguments) implements TextCommand {
    }

    record Version() implements TextCommand {
    }

    record Verbosity(boolean noreply) implements TextCommand {
    }

    record Quit() implements TextCommand {
    }

    /**
     * A line memcached answers with an error of its own ({@code ERROR}, {@code CLIENT_ERROR ...}), hidden when the
     * line asked for {@code noreply}; {@code close} closes the connection after it (with {@code line} null: without
     * a reply, as memcached drops a connection that sends an over-long line).
     */
    record Refused(String line, boolean close, boolean noreply) implements TextCommand {
        public static Refused error() {
            return new Refused("ERROR", false, false);
        }

        public static Refused client(String why, boolean noreply) {
            return new Refused("CLIENT_ERROR " + why, false, noreply);
        }
    }

    /**
     * One of memcached's meta commands, as {@link MetaCommands} reads it: {@code mg}, {@code ms}, {@code md},
     * {@code ma}, {@code me} or {@code mn}, its key (base64-decoded when the {@code b} flag says so) and its flags.
     *
     * @param data the data block of {@code ms}; null for the others
     */
    record Meta(MetaVerb verb, byte[] key, MetaFlags flags, byte[] data) implements TextCommand {
        @Override
        public boolean noreply() {
            return flags.quiet();
        }
    }

    enum MetaVerb {
        GET, SET, DELETE, ARITHMETIC, DEBUG, NOOP
    }

    /**
     * The flags of a meta command. {@code returned} keeps the request's flags in order, as the reply names those it
     * returns in that order: each is the flag's token as sent (its letter, and for {@code O} the opaque to copy back).
     *
     * @param binaryKey {@code b}: the key was sent in base64, and is returned so
     * @param quiet {@code q}: the nominal reply is left out (a miss for {@code mg}, success for the others)
     * @param value {@code v}: the value is returned
     * @param ttl {@code T}: the new expiry (memcached's field), or null
     * @param vivify {@code N}: {@code ma} creates a missing counter, {@code mg} a missing item, with this expiry (for
     *     {@code mg}, the {@code T} after it if one is: memcached sets a created item's expiry at each in turn), or
     *     null
     * @param clientFlags {@code F}: the client flags {@code ms} stores (0 without)
     * @param compareCas {@code C}: the CAS the item must have, or null
     * @param mode {@code M}: the mode letter, or 0
     * @param initial {@code J}: the value {@code ma} creates a counter with
     * @param delta {@code D}: what {@code ma} adds or subtracts
     * @param recache {@code R}: {@code mg} wins the item's lease if it has fewer seconds left than this, or null
     * @param invalidate {@code I}: {@code md} marks the item stale instead of removing it; {@code ms} in set or
     *     replace mode with a {@code C} older than the item's stores the value marked stale
     * @param chosenCas {@code E}: the CAS the item written gets, or 0 for the backend's own
     */
    record MetaFlags(List<byte[]> returned, boolean binaryKey, boolean quiet, boolean value, Integer ttl,
                     Integer vivify, int clientFlags, Long compareCas, char mode, long initial, long delta,
                     Integer recache, boolean invalidate, long chosenCas) {
        public MetaFlags {
            returned = List.copyOf(returned);
        }

        static final MetaFlags NONE = new MetaFlags(List.of(), false, false, false, null, null, 0, null, (char) 0,
                0, 1, null, false, 0);
    }
}
