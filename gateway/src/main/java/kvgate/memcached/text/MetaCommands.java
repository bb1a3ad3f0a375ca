package kvgate.memcached.text;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;

/**
 * Reads memcached's meta command lines ({@code mg}, {@code ms}, {@code md}, {@code ma}, {@code me}, {@code mn})
 * with memcached 1.6's rules and error words: a flag is one letter, some with a token after it; a flag twice, or one
 * memcached does not know, refuses the line. Flags that need item state no backend of the gateway keeps ({@code h}
 * hit and {@code l} last-access times) are refused as memcached refuses a flag it does not know; those of leases
 * ({@code N}, {@code R}, {@code I}) are read here, on every command as memcached 1.6 reads them, and where they act
 * ({@code N} and {@code R} of {@code mg}, {@code I} of {@code md}, and of {@code ms} in set or replace mode with a
 * {@code C}) refused by the translation when the backends keep no leases; elsewhere they change nothing, as in
 * memcached 1.6.18. So are {@code T} and {@code t} of {@code ma} and {@code E} (a chosen CAS) where the backends
 * cannot serve them. Errors are always answered, {@code q} or not.
 */
final class MetaCommands {
    /** memcached reads at most this many words of a meta command line (its flags included). */
    private static final int MAX_TOKENS = 20;
    private static final int MAX_OPAQUE_LENGTH = 32;

    /** A meta line read: the command, or its refusal; for {@code ms}, the data block to read or skip next. */
    record Parsed(TextCommand command, int dataLength, boolean skipData) {
        static Parsed of(TextCommand command) {
            return new Parsed(command, -1, false);
        }
    }

    private MetaCommands() {
    }

    private static Parsed refused(String why) {
        return Parsed.of(new TextCommand.Refused(why, false, false));
    }

    /** The command a meta line makes; {@code tokens} counts as memcached counts (the words, and an end). */
    static Parsed parse(char letter, List<byte[]> words, int tokens) {
        TextCommand.MetaVerb verb = switch (letter) {
            case 'g' -> TextCommand.MetaVerb.GET;
            case 's' -> TextCommand.MetaVerb.SET;
            case 'd' -> TextCommand.MetaVerb.DELETE;
            case 'a' -> TextCommand.MetaVerb.ARITHMETIC;
            case 'e' -> TextCommand.MetaVerb.DEBUG;
            case 'n' -> TextCommand.MetaVerb.NOOP;
            default -> null;
        };
        if (verb == null) {
            return Parsed.of(TextCommand.Refused.error());
        }
        if (verb == TextCommand.MetaVerb.NOOP) {
            return Parsed.of(new TextCommand.Meta(verb, null, TextCommand.MetaFlags.NONE, null));
        }
        if (verb == TextCommand.MetaVerb.DEBUG) {
            return debug(words, tokens);
        }
        if (tokens < 3) {
            return Parsed.of(TextCommand.Refused.error());
        }
        if (words.get(1).length > TextDecoder.MAX_KEY_LENGTH) {
            return refused("CLIENT_ERROR bad command line format");
        }
        if (tokens > MAX_TOKENS) {
            return refused(verb == TextCommand.MetaVerb.GET ? "CLIENT_ERROR options flags are too long"
                    : "CLIENT_ERROR options flags too long");
        }
        int dataLength = -1;
        int firstFlag = 2;
        if (verb == TextCommand.MetaVerb.SET) {
            if (tokens == 3) {
                return refused("CLIENT_ERROR bad command line format");
            }
            Integer length = TextNumbers.int32(words.get(2));
            if (length == null || length < 0 || length > Integer.MAX_VALUE - 2) {
                return refused("CLIENT_ERROR bad command line format");
            }
            dataLength = length;
            firstFlag = 3;
        }
        Object flags = flags(verb, words, firstFlag);
        if (flags instanceof String why) {
            // md and ma answer every flag they cannot read with one error of their own.
            return refusal(verb, verb == TextCommand.MetaVerb.DELETE || verb == TextCommand.MetaVerb.ARITHMETIC
                    ? "CLIENT_ERROR invalid or duplicate flag" : why, dataLength);
        }
        TextCommand.MetaFlags read = (TextCommand.MetaFlags) flags;
        String modeProblem = modeProblem(verb, read.mode());
        if (modeProblem != null) {
            return refusal(verb, modeProblem, dataLength);
        }
        for (byte[] flag : read.returned()) {
            if (flag[0] == 'O' && flag.length > MAX_OPAQUE_LENGTH) {
                return refusal(verb, "CLIENT_ERROR opaque token too long", dataLength);
            }
        }
        byte[] key = words.get(1);
        if (read.binaryKey()) {
            key = decodeKey(key);
            if (key == null) {
                return refusal(verb, "CLIENT_ERROR error decoding key", dataLength);
            }
        }
        return new Parsed(new TextCommand.Meta(verb, key, read, null), dataLength, false);
    }

    /** A refusal; an {@code ms} whose length was read has its data block skipped, as memcached swallows it. */
    private static Parsed refusal(TextCommand.MetaVerb verb, String why, int dataLength) {
        return new Parsed(new TextCommand.Refused(why, false, false), dataLength,
                verb == TextCommand.MetaVerb.SET && dataLength >= 0);
    }

    private static Parsed debug(List<byte[]> words, int tokens) {
        if (tokens < 3 || words.get(1).length > TextDecoder.MAX_KEY_LENGTH) {
            return refused("CLIENT_ERROR bad command line format");
        }
        boolean binary = tokens >= 4 && Arrays.equals(words.get(2), new byte[] {'b'});
        byte[] key = binary ? decodeKey(words.get(1)) : words.get(1);
        if (key == null) {
            return refused("CLIENT_ERROR bad command line format");
        }
        List<byte[]> returned = binary ? List.of(new byte[] {'b'}) : List.of();
        return Parsed.of(new TextCommand.Meta(TextCommand.MetaVerb.DEBUG, key, new TextCommand.MetaFlags(returned,
                binary, false, false, null, null, 0, null, (char) 0, 0, 1, null, false, 0), null));
    }

    private static byte[] decodeKey(byte[] encoded) {
        try {
            byte[] key = Base64.getDecoder().decode(encoded);
            return key.length == 0 ? null : key;
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    private static String modeProblem(TextCommand.MetaVerb verb, char mode) {
        if (mode == 0) {
            return null;
        }
        return switch (verb) {
            case SET -> "ESAPR".indexOf(mode) >= 0 ? null : "CLIENT_ERROR invalid mode for ms M token";
            case ARITHMETIC -> "I+D-".indexOf(mode) >= 0 ? null : "CLIENT_ERROR invalid mode for ma M token";
            default -> null; // memcached reads M on every meta command and uses it on these two only
        };
    }

    /** The flags from word {@code first} on, or the error that refuses them. */
    private static Object flags(TextCommand.MetaVerb verb, List<byte[]> words, int first) {
        boolean[] seen = new boolean[128];
        List<byte[]> returned = new ArrayList<>();
        boolean binaryKey = false;
        boolean quiet = false;
        boolean value = false;
        Integer ttl = null;
        Integer vivify = null;
        int clientFlags = 0;
        Long compareCas = null;
        char mode = 0;
        long initial = 0;
        long delta = 1;
        Integer recache = null;
        boolean invalidate = false;
        long chosenCas = 0;
        String problem = null;
        for (int i = first; i < words.size(); i++) {
            byte[] word = words.get(i);
            int letter = word[0] & 0xff;
            if (letter >= 127 || seen[letter]) {
                return "CLIENT_ERROR duplicate flag";
            }
            seen[letter] = true;
            byte[] token = Arrays.copyOfRange(word, 1, word.length);
            switch (letter) {
                case 'b' -> binaryKey = true;
                case 'q' -> quiet = true;
                case 'v' -> value = true;
                case 'u', 'P', 'L' -> {
                    // no LRU to leave unbumped; proxy hints: nothing to do
                }
                case 'k', 's', 'c', 'f', 'O' -> returned.add(word);
                case 't' -> returned.add(word);
                case 'T' -> {
                    ttl = TextNumbers.int32(token);
                    problem = ttl == null ? "CLIENT_ERROR bad token in command line format" : problem;
                    if (seen['N']) {
                        vivify = ttl; // memcached sets a created item's expiry at N, then again at a T after it
                    }
                }
                case 'N' -> {
                    vivify = TextNumbers.int32(token);
                    problem = vivify == null ? "CLIENT_ERROR bad token in command line format" : problem;
                }
                case 'R' -> {
                    recache = TextNumbers.int32(token);
                    problem = recache == null ? "CLIENT_ERROR bad token in command line format" : problem;
                }
                case 'I' -> invalidate = true;
                case 'F' -> {
                    Integer parsed = TextNumbers.uint32(token);
                    clientFlags = parsed == null ? 0 : parsed;
                    problem = parsed == null ? "CLIENT_ERROR bad command line format" : problem;
                }
                case 'C' -> {
                    compareCas = TextNumbers.uint64(token);
                    problem = compareCas == null ? "CLIENT_ERROR bad token in command line format" : problem;
                }
                case 'E' -> {
                    // 0 is no CAS to the operation stream (a write with CAS 0 is one the backend numbers), so a
                    // client cannot choose it.
                    Long parsed = TextNumbers.uint64(token);
                    chosenCas = parsed == null ? 0 : parsed;
                    problem = chosenCas == 0 ? "CLIENT_ERROR bad token in command line format" : problem;
                }
                case 'M' -> {
                    if (word.length != 2) {
                        problem = "CLIENT_ERROR incorrect length for M token";
                    } else {
                        mode = (char) word[1];
                    }
                }
                case 'J' -> {
                    Long parsed = TextNumbers.uint64(token);
                    initial = parsed == null ? 0 : parsed;
                    problem = parsed == null ? "CLIENT_ERROR invalid numeric initial value" : problem;
                }
                case 'D' -> {
                    Long parsed = TextNumbers.uint64(token);
                    delta = parsed == null ? 1 : parsed;
                    problem = parsed == null ? "CLIENT_ERROR invalid numeric delta value" : problem;
                }
                // h and l need item state no backend keeps: whether the item was read since it was written, and
                // when last.
                case 'h', 'l' -> {
                    return unsupported();
                }
                default -> {
                    return "CLIENT_ERROR invalid flag";
                }
            }
        }
        if (problem != null) {
            return problem;
        }
        return new TextCommand.MetaFlags(returned, binaryKey, quiet, value, ttl, vivify, clientFlags, compareCas,
                mode, initial, delta, recache, invalidate, chosenCas);
    }

    /** A flag memcached knows and the gateway cannot serve: refused as memcached refuses a flag it does not know. */
    private static String unsupported() {
        return "CLIENT_ERROR invalid flag";
    }
}
