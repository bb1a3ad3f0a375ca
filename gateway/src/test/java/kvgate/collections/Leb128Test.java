package kvgate.collections;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The LEB128 collection-id prefix: the reference table both ways, and every invalid form the documents name. */
class Leb128Test {

    /** The table of ids and their encodings from the collections document. */
    static Stream<Arguments> referenceTable() {
        return Stream.of(
                Arguments.of(0x00L, bytes(0x00)),
                Arguments.of(0x01L, bytes(0x01)),
                Arguments.of(0x7FL, bytes(0x7F)),
                Arguments.of(0x80L, bytes(0x80, 0x01)),
                Arguments.of(0x555L, bytes(0xD5, 0x0A)),
                Arguments.of(0x7FFFL, bytes(0xFF, 0xFF, 0x01)),
                Arguments.of(0xBFFFL, bytes(0xFF, 0xFF, 0x02)),
                Arguments.of(0xFFFFL, bytes(0xFF, 0xFF, 0x03)),
                Arguments.of(0x8000L, bytes(0x80, 0x80, 0x02)),
                Arguments.of(0x5555L, bytes(0xD5, 0xAA, 0x01)),
                Arguments.of(0xCAFEF00L, bytes(0x80, 0xDE, 0xBF, 0x65)),
                Arguments.of(0xCAFEF00DL, bytes(0x8D, 0xE0, 0xFB, 0xD7, 0x0C)),
                Arguments.of(0xFFFFFFFFL, bytes(0xFF, 0xFF, 0xFF, 0xFF, 0x0F)));
    }

    private static byte[] bytes(int... values) {
        byte[] out = new byte[values.length];
        for (int i = 0; i < values.length; i++) {
            out[i] = (byte) values[i];
        }
        return out;
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    @ParameterizedTest
    @MethodSource("referenceTable")
    void encodesEveryIdOfTheTableToItsBytes(long id, byte[] encoded) {
        assertArrayEquals(encoded, Leb128.encode(id));
    }

    @ParameterizedTest
    @MethodSource("referenceTable")
    void decodesEveryEncodingOfTheTableToItsIdAndLength(long id, byte[] encoded) {
        long decoded = Leb128.decode(encoded);
        assertNotEquals(Leb128.INVALID, decoded);
        assertEquals(id, Leb128.id(decoded));
        assertEquals(encoded.length, Leb128.length(decoded));
    }

    @ParameterizedTest
    @MethodSource("referenceTable")
    void decodesOnlyThePrefixWhenKeyBytesFollow(long id, byte[] encoded) {
        byte[] key = concat(encoded, "Hello".getBytes(StandardCharsets.US_ASCII));
        long decoded = Leb128.decode(key);
        assertNotEquals(Leb128.INVALID, decoded);
        assertEquals(id, Leb128.id(decoded));
        assertEquals(encoded.length, Leb128.length(decoded));
    }

    @Test
    void decodesTheDocumentsAddExampleKey() {
        // Collection 0x555 followed by "Hello": the prefix is the first two of the seven key bytes.
        byte[] key = concat(bytes(0xD5, 0x0A), "Hello".getBytes(StandardCharsets.US_ASCII));
        long decoded = Leb128.decode(key);
        assertEquals(0x555, Leb128.id(decoded));
        assertEquals(2, Leb128.length(decoded));
    }

    static Stream<byte[]> nonCanonicalFormsOfOne() {
        return Stream.of(
                bytes(0x81, 0x00),
                bytes(0x81, 0x80, 0x00),
                bytes(0x81, 0x80, 0x80, 0x00),
                bytes(0x81, 0x80, 0x80, 0x80, 0x00));
    }

    @ParameterizedTest
    @MethodSource("nonCanonicalFormsOfOne")
    void refusesNonCanonicalFormsOfOne(byte[] encoded) {
        assertEquals(Leb128.INVALID, Leb128.decode(encoded));
    }

    @ParameterizedTest
    @MethodSource("nonCanonicalFormsOfOne")
    void refusesNonCanonicalFormsOfOneFollowedByKeyBytes(byte[] encoded) {
        assertEquals(Leb128.INVALID, Leb128.decode(concat(encoded, bytes('k', 'e', 'y'))));
    }

    @Test
    void refusesANonCanonicalFormOfZero() {
        assertEquals(Leb128.INVALID, Leb128.decode(bytes(0x80, 0x00)));
    }

    @Test
    void refusesANonCanonicalFormOfALargerId() {
        // 0x80 padded with a zero stop byte.
        assertEquals(Leb128.INVALID, Leb128.decode(bytes(0x80, 0x81, 0x00)));
    }

    @Test
    void refusesZeroEncodedAsSixBytes() {
        assertEquals(Leb128.INVALID, Leb128.decode(bytes(0x80, 0x80, 0x80, 0x80, 0x80, 0x00)));
    }

    @Test
    void refusesAPrefixWithoutStopByteWithinFiveBytes() {
        assertEquals(Leb128.INVALID, Leb128.decode(bytes(0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01)));
        assertEquals(Leb128.INVALID, Leb128.decode(bytes(0x81, 0x81, 0x81, 0x81, 0x81, 'a', 'b')));
    }

    @Test
    void refusesAKeyThatEndsBeforeTheStopByte() {
        assertEquals(Leb128.INVALID, Leb128.decode(bytes(0x80)));
        assertEquals(Leb128.INVALID, Leb128.decode(bytes(0xFF, 0xFF, 0xFF, 0xFF)));
    }

    @Test
    void refusesAnEmptyKey() {
        assertEquals(Leb128.INVALID, Leb128.decode(new byte[0]));
    }

    @Test
    void refusesAFiveByteEncodingAbove32Bits() {
        assertEquals(Leb128.INVALID, Leb128.decode(bytes(0x80, 0x80, 0x80, 0x80, 0x10)));
        assertEquals(Leb128.INVALID, Leb128.decode(bytes(0xFF, 0xFF, 0xFF, 0xFF, 0x1F)));
        assertEquals(Leb128.INVALID, Leb128.decode(bytes(0xFF, 0xFF, 0xFF, 0xFF, 0x7F, 'k')));
    }

    @Test
    void acceptsAFiveBytePrefixOfALongerKey() {
        byte[] key = concat(bytes(0x80, 0x80, 0x80, 0x80, 0x01), bytes(0x80, 0x80, 'k'));
        long decoded = Leb128.decode(key);
        assertNotEquals(Leb128.INVALID, decoded);
        assertEquals(1L << 28, Leb128.id(decoded));
        assertEquals(5, Leb128.length(decoded));
    }

    @Test
    void acceptsAOneBytePrefixWhoseKeyBytesHaveTheHighBitSet() {
        long decoded = Leb128.decode(bytes(0x08, 0xFF, 0x80, 0x80, 0x80, 0x80, 0x80));
        assertEquals(8, Leb128.id(decoded));
        assertEquals(1, Leb128.length(decoded));
    }

    @Test
    void encodeRefusesIdsOutside32Bits() {
        assertThrows(IllegalArgumentException.class, () -> Leb128.encode(-1));
        assertThrows(IllegalArgumentException.class, () -> Leb128.encode(0x1_0000_0000L));
    }

    @Test
    void encodeThenDecodeGivesBackEveryRandomId() {
        Random random = new Random(0x1eb128L);
        for (int i = 0; i < 100_000; i++) {
            long id = random.nextInt() & 0xFFFF_FFFFL;
            roundTrips(id);
        }
        for (int shift = 0; shift < 32; shift++) {
            roundTrips(1L << shift);
            roundTrips((1L << shift) - 1);
            roundTrips((1L << (shift + 1)) - 1);
        }
    }

    private static void roundTrips(long id) {
        byte[] encoded = Leb128.encode(id);
        int expectedLength = id == 0 ? 1 : (64 - Long.numberOfLeadingZeros(id) + 6) / 7;
        assertEquals(expectedLength, encoded.length, () -> "length of the encoding of " + Long.toHexString(id));
        long decoded = Leb128.decode(concat(encoded, bytes(0x80, 'k')));
        assertEquals(id, Leb128.id(decoded), () -> "id " + Long.toHexString(id));
        assertEquals(encoded.length, Leb128.length(decoded), () -> "prefix length of " + Long.toHexString(id));
    }
}
