package kvgate.memcached.text;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;

/**
 * The numbers of a command line, read as memcached reads them (its {@code safe_strto*} over C's {@code strtol}
 * family on a 64-bit host): leading white space and a sign are allowed, then decimal digits, then the token's end or
 * white space; a number beyond 64 bits is refused, and a 32-bit field keeps the low 32 bits of what was read, as the
 * C assignment does. Each method returns null for a token memcached refuses.
 */
final class TextNumbers {
    private static final BigInteger UNSIGNED_MAX = BigInteger.ONE.shiftLeft(64).subtract(BigInteger.ONE);
    private static final BigInteger SIGNED_MIN = BigInteger.valueOf(Long.MIN_VALUE);
    private static final BigInteger SIGNED_MAX = BigInteger.valueOf(Long.MAX_VALUE);

    private TextNumbers() {
    }

    /**
     * A token of at most 18 decimal digits and nothing else, the form nearly every number a client sends takes, as
     * its value; -1 for any other token, which the full reading below then judges.
     */
    private static long plainDigits(byte[] token) {
        if (token.length == 0 || token.length > 18) {
            return -1;
        }
        long value = 0;
        for (byte b : token) {
            if (b < '0' || b > '9') {
                return -1;
            }
            value = value * 10 + (b - '0');
        }
        return value;
    }

    /** {@code safe_strtol}: a signed number, truncated to 32 bits (an expiry, a value length). */
    static Integer int32(byte[] token) {
        long plain = plainDigits(token);
        if (plain >= 0) {
            return (int) plain;
        }
        BigInteger read = read(token);
        if (read == null || read.compareTo(SIGNED_MIN) < 0 || read.compareTo(SIGNED_MAX) > 0) {
            return null;
        }
        return (int) read.longValue();
    }

    /** {@code safe_strtoul}: an unsigned number, truncated to 32 bits (client flags, a verbosity level). */
    static Integer uint32(byte[] token) {
        long plain = plainDigits(token);
        if (plain >= 0) {
            return (int) plain;
        }
        Long read = uint64(token);
        return read == null ? null : (int) read.longValue();
    }

    /**
     * {@code safe_strtoull}: an unsigned 64-bit number (a CAS unique, a delta). As {@code strtoull}, a negative
     * number wraps; memcached refuses it only when the result reads as negative in 64 signed bits.
     */
    static Long uint64(byte[] token) {
        long plain = plainDigits(token);
        if (plain >= 0) {
            return plain;
        }
        BigInteger read = read(token);
        if (read == null || read.abs().compareTo(UNSIGNED_MAX) > 0) {
            return null;
        }
        long value = read.longValue(); // a negative number wraps modulo 2^64, as strtoull's result does
        if (value < 0 && indexOf(token, '-') >= 0) {
            return null;
        }
        return value;
    }

    /** The number at the start of {@code token} as C's strto* functions find it, or null when there is none. */
    private static BigInteger read(byte[] token) {
        int at = 0;
        while (at < token.length && isSpace(token[at])) {
            at++;
        }
        boolean negative = false;
        if (at < token.length && (token[at] == '+' || token[at] == '-')) {
            negative = token[at] == '-';
            at++;
        }
        int digits = at;
        while (at < token.length && token[at] >= '0' && token[at] <= '9') {
            at++;
        }
        if (at == digits || at < token.length && !isSpace(token[at])) {
            return null;
        }
        // Leading zeros are allowed; a number of more than 40 digits is beyond 64 bits whatever it is.
        int first = digits;
        while (first < at - 1 && token[first] == '0') {
            first++;
        }
        if (at - first > 40) {
            return null;
        }
        BigInteger value = new BigInteger(new String(token, first, at - first, StandardCharsets.US_ASCII));
        return negative ? value.negate() : value;
    }

    static boolean isSpace(byte b) {
        return b == ' ' || b == '\t' || b == '\n' || b == 0x0b || b == '\f' || b == '\r';
    }

    private static int indexOf(byte[] token, char c) {
        for (int i = 0; i < token.length; i++) {
            if (token[i] == c) {
                return i;
            }
        }
        return -1;
    }
}
