package kvgate.mpdb;

import java.io.IOException;
import java.math.BigInteger;
import org.msgpack.core.MessageFormat;
import org.msgpack.core.MessagePacker;

/**
 * The MsgPack integer formats. MPDB's clients tell int from uint and 32 from 64 bits by the format a number travels
 * in, so a stored integer remembers its format byte and goes back out in it.
 */
enum IntegerFormat {
    POSITIVE_FIXINT(0x00, 0, 127),
    UINT8(0xcc, 0, 0xff),
    UINT16(0xcd, 0, 0xffff),
    UINT32(0xce, 0, 0xffff_ffffL),
    UINT64(0xcf, BigInteger.ZERO, MpdbValue.UINT64_MAX),
    NEGATIVE_FIXINT(0xe0, -32, -1),
    INT8(0xd0, Byte.MIN_VALUE, Byte.MAX_VALUE),
    INT16(0xd1, Short.MIN_VALUE, Short.MAX_VALUE),
    INT32(0xd2, Integer.MIN_VALUE, Integer.MAX_VALUE),
    INT64(0xd3, Long.MIN_VALUE, Long.MAX_VALUE);

    private static final IntegerFormat[] ALL = values();

    /** The format code of a value written the way a MsgPack packer writes it: in the fewest bytes. */
    static final byte MINIMAL = 0x00;

    final byte code;
    private final BigInteger min;
    private final BigInteger max;

    IntegerFormat(int code, long min, long max) {
        this(code, BigInteger.valueOf(min), BigInteger.valueOf(max));
    }

    IntegerFormat(int code, BigInteger min, BigInteger max) {
        this.code = (byte) code;
        this.min = min;
        this.max = max;
    }

    static boolean isInteger(byte code) {
        return of(code) != null;
    }

    static IntegerFormat of(byte code) {
        for (IntegerFormat format : ALL) {
            if (format.code == code) {
                return format;
            }
        }
        return null;
    }

    /** The format of an integer as the unpacker names it. */
    static IntegerFormat of(MessageFormat format) {
        return switch (format) {
            case POSFIXINT -> POSITIVE_FIXINT;
            case NEGFIXINT -> NEGATIVE_FIXINT;
            case UINT8 -> UINT8;
            case UINT16 -> UINT16;
            case UINT32 -> UINT32;
            case UINT64 -> UINT64;
            case INT8 -> INT8;
            case INT16 -> INT16;
            case INT32 -> INT32;
            case INT64 -> INT64;
            default -> throw new IllegalArgumentException(format + " is not an integer format");
        };
    }

    boolean fits(BigInteger number) {
        return number.compareTo(min) >= 0 && number.compareTo(max) <= 0;
    }

    /**
     * The format to write {@code number} in: {@code wanted} when the number fits it; otherwise, for a sized format,
     * the smallest one of the same signedness that fits (a number beyond int64 goes as uint64, a negative one as an
     * int), and for a fixint the fewest bytes, as a packer would choose.
     */
    static byte fitting(byte wanted, BigInteger number) {
        IntegerFormat format = of(wanted);
        if (format != null && format.fits(number)) {
            return wanted;
        }
        IntegerFormat[] family;
        if (format == null || format == POSITIVE_FIXINT || format == NEGATIVE_FIXINT) {
            family = number.signum() >= 0
                    ? new IntegerFormat[] {POSITIVE_FIXINT, UINT8, UINT16, UINT32, UINT64}
                    : new IntegerFormat[] {NEGATIVE_FIXINT, INT8, INT16, INT32, INT64};
        } else if (format.code >= UINT8.code && format.code <= UINT64.code) {
            family = new IntegerFormat[] {UINT8, UINT16, UINT32, UINT64, INT8, INT16, INT32, INT64};
        } else {
            family = new IntegerFormat[] {INT8, INT16, INT32, INT64, UINT64};
        }
        for (IntegerFormat candidate : family) {
            if (candidate.fits(number)) {
                return candidate.code;
            }
        }
        throw new IllegalArgumentException("no MsgPack integer format holds " + number);
    }

    /** Writes {@code number} in exactly the format {@code code}, which must hold it. */
    static void write(MessagePacker packer, byte code, BigInteger number) throws IOException {
        IntegerFormat format = of(code);
        if (format == null || !format.fits(number)) {
            throw new IllegalArgumentException(number + " does not fit format " + code);
        }
        int size = switch (format) {
            case POSITIVE_FIXINT, NEGATIVE_FIXINT -> 0;
            case UINT8, INT8 -> 1;
            case UINT16, INT16 -> 2;
            case UINT32, INT32 -> 4;
            case UINT64, INT64 -> 8;
        };
        long bits = number.longValue(); // two's complement low 64 bits: right for uint64 above 2^63 too
        if (size == 0) {
            packer.writePayload(new byte[] {(byte) bits});
            return;
        }
        byte[] encoded = new byte[1 + size];
        encoded[0] = code;
        for (int i = 0; i < size; i++) {
            encoded[size - i] = (byte) (bits >>> (8 * i));
        }
        packer.writePayload(encoded);
    }
}
