package kvgate.mpdb;

import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import kvgate.spi.Item;

/**
 * A value as MPDB sees it, and how it is kept in an {@link Item} so that other protocols read it naturally: a
 * string is stored as its UTF-8 bytes, an integer as its decimal text (so memcached's incr works on it), and the
 * flags say which it was and in which MsgPack format it came, so it goes back out as exactly that type.
 *
 * <p>The flags follow Couchbase's common flags in their top byte (string {@code 0x04}, JSON {@code 0x02}: a decimal
 * number is a JSON document), so a Couchbase SDK decodes MPDB's values too; the low byte holds the MsgPack format
 * code and the byte above it {@link #MARK}.
 *
 * @param type what the value is
 * @param format for an integer, the MsgPack format byte it arrived in (0xcc for uint8, 0x00 for a positive fixint,
 *     0xe0 for a negative fixint, ...), so the reply uses the same one while the number fits it; 0 otherwise
 * @param bytes UTF-8 text, decimal digits (with a leading minus for a negative integer), or raw bytes
 */
public record MpdbValue(Type type, byte format, byte[] bytes) {

    public enum Type {
        STRING,
        INTEGER,
        /** Bytes another protocol stored that are not UTF-8: read back as MsgPack bin, never accepted in writes. */
        BINARY
    }

    static final int MARK = 0x4d00;
    private static final int COMMON_STRING = 0x04 << 24;
    private static final int COMMON_JSON = 0x02 << 24;
    private static final int COMMON_FORMAT_MASK = 0x0f << 24;
    /** The low byte marking a string; integer format bytes are never 0xa0 (that is a fixstr). */
    private static final int STRING_FORMAT = 0xa0;

    static final BigInteger UINT64_MAX = BigInteger.ONE.shiftLeft(64).subtract(BigInteger.ONE);

    public static MpdbValue string(byte[] utf8) {
        return new MpdbValue(Type.STRING, (byte) 0, utf8);
    }

    /** An integer in the MsgPack format {@code format}; {@code decimal} is its value in decimal. */
    public static MpdbValue integer(byte format, String decimal) {
        return new MpdbValue(Type.INTEGER, format, decimal.getBytes(StandardCharsets.US_ASCII));
    }

    /** The flags an item holding this value is stored with. */
    public int flags() {
        return switch (type) {
            case STRING -> COMMON_STRING | MARK | STRING_FORMAT;
            case INTEGER -> COMMON_JSON | MARK | (format & 0xff);
            case BINARY -> 0;
        };
    }

    /**
     * The value held by an item, whoever stored it. An item stored through MPDB comes back as it went in. Another
     * protocol's item reads as an integer when its flags say JSON and it is one, otherwise as a string when it is
     * UTF-8 text, otherwise as binary. An integer whose text another client changed (memcached incr) keeps its
     * format if the new number fits it, else it takes the smallest format of the same signedness that does.
     */
    public static MpdbValue of(Item item) {
        int flags = item.flags();
        byte[] bytes = item.value();
        boolean marked = (flags & 0xff00) == MARK;
        int format = flags & 0xff;
        if (marked && (flags & COMMON_FORMAT_MASK) == COMMON_STRING && format == STRING_FORMAT) {
            return utf8(bytes) ? string(bytes) : new MpdbValue(Type.BINARY, (byte) 0, bytes);
        }
        if ((flags & COMMON_FORMAT_MASK) == COMMON_JSON) {
            BigInteger number = decimal(bytes);
            if (number != null) {
                byte wanted = marked && IntegerFormat.isInteger((byte) format) ? (byte) format
                        : IntegerFormat.MINIMAL;
                return integer(IntegerFormat.fitting(wanted, number), number.toString());
            }
        }
        return utf8(bytes) ? string(bytes) : new MpdbValue(Type.BINARY, (byte) 0, bytes);
    }

    /** The integer's value; only for {@link Type#INTEGER}. */
    public BigInteger number() {
        return new BigInteger(new String(bytes, StandardCharsets.US_ASCII));
    }

    /** A decimal integer from -2^63 to 2^64-1 with no sign, spaces or leading zeros to spare, or null. */
    private static BigInteger decimal(byte[] bytes) {
        if (bytes.length == 0 || bytes.length > 21) {
            return null;
        }
        for (int i = 0; i < bytes.length; i++) {
            byte b = bytes[i];
            if (!(b >= '0' && b <= '9') && !(i == 0 && b == '-' && bytes.length > 1)) {
                return null;
            }
        }
        String text = new String(bytes, StandardCharsets.US_ASCII);
        BigInteger number = new BigInteger(text);
        if (number.compareTo(UINT64_MAX) > 0 || number.compareTo(BigInteger.valueOf(Long.MIN_VALUE)) < 0
                || !number.toString().equals(text)) {
            return null;
        }
        return number;
    }

    static boolean utf8(byte[] bytes) {
        try {
            StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes));
            return true;
        } catch (CharacterCodingException e) {
            return false;
        }
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof MpdbValue that && type == that.type && format == that.format
                && Arrays.equals(bytes, that.bytes);
    }

    @Override
    public int hashCode() {
        return 31 * (31 * type.hashCode() + format) + Arrays.hashCode(bytes);
    }

    @Override
    public String toString() {
        return type + (type == Type.INTEGER ? String.format("(0x%02x)", format & 0xff) : "") + ":"
                + (type == Type.BINARY ? Arrays.toString(bytes) : new String(bytes, StandardCharsets.UTF_8));
    }
}
