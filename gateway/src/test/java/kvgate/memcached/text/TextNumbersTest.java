package kvgate.memcached.text;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** Numbers read as memcached reads them, through C's strtol family on a 64-bit host. */
class TextNumbersTest {

    private static byte[] token(String text) {
        return text.getBytes(StandardCharsets.US_ASCII);
    }

    @Test
    void signedNumbersKeepTheirLow32Bits() {
        assertEquals(100, TextNumbers.int32(token("100")));
        assertEquals(5, TextNumbers.int32(token("+5")));
        assertEquals(-1, TextNumbers.int32(token("-1")));
        assertEquals(7, TextNumbers.int32(token("007")));
        assertEquals(1, TextNumbers.int32(token("4294967297")), "2^32 + 1 keeps its low bits");
        assertEquals(-1, TextNumbers.int32(token("9223372036854775807")));
        assertNull(TextNumbers.int32(token("9223372036854775808")), "beyond a long: ERANGE");
        assertEquals(12, TextNumbers.int32(token("\t12")), "leading white space");
        assertEquals(12, TextNumbers.int32(token("12\t")), "trailing white space ends the number");
        assertNull(TextNumbers.int32(token("12x")));
        assertNull(TextNumbers.int32(token("")));
        assertNull(TextNumbers.int32(token("+")));
        assertEquals(0, TextNumbers.int32(token("0".repeat(60))), "leading zeros however many");
    }

    @Test
    void unsignedNumbersRefuseWhatReadsNegative() {
        assertEquals(-1L, TextNumbers.uint64(token("18446744073709551615")), "2^64 - 1");
        assertNull(TextNumbers.uint64(token("18446744073709551616")), "2^64: ERANGE");
        assertNull(TextNumbers.uint64(token("-1")), "wraps to 2^64 - 1, which reads negative");
        assertEquals(0L, TextNumbers.uint64(token("-0")));
        assertEquals(9223372036854775807L, TextNumbers.uint64(token("-9223372036854775809")),
                "wraps to 2^63 - 1, positive: accepted, as strtoull takes it");
        assertEquals(0, TextNumbers.uint32(token("4294967296")), "2^32 keeps its low bits");
        assertNull(TextNumbers.uint32(token("-5")));
    }
}
