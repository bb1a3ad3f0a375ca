package kvgate.mpdb;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import kvgate.spi.Item;
import org.junit.jupiter.api.Test;

/** How MPDB values are kept in items, and read from items other protocols wrote. */
class MpdbValueTest {
    private static Item item(MpdbValue value) {
        return new Item(value.bytes(), value.flags(), 1, Item.NEVER);
    }

    private static Item item(String text, int flags) {
        return new Item(text.getBytes(StandardCharsets.UTF_8), flags, 1, Item.NEVER);
    }

    @Test
    void stringsAndIntegersComeBackWithTheirFormat() {
        MpdbValue text = MpdbValue.string("héllo".getBytes(StandardCharsets.UTF_8));
        assertEquals(text, MpdbValue.of(item(text)));
        assertEquals(0x0400_4da0, text.flags(), "Couchbase's string common flag, the mark, the fixstr code");
        MpdbValue uint8 = MpdbValue.integer((byte) 0xcc, "200");
        assertEquals(uint8, MpdbValue.of(item(uint8)));
        assertArrayEquals("200".getBytes(StandardCharsets.US_ASCII), uint8.bytes(), "stored as decimal text");
        assertEquals(0x0200_4dcc, uint8.flags(), "Couchbase's JSON common flag: a number is a JSON document");
    }

    @Test
    void anIntegerOutgrowingItsFormatTakesTheNextOfItsSignedness() {
        assertEquals((byte) 0xcd, MpdbValue.of(item("256", 0x0200_4dcc)).format(), "uint8 -> uint16");
        assertEquals((byte) 0xd1, MpdbValue.of(item("200", 0x0200_4dd0)).format(), "int8 -> int16");
        assertEquals((byte) 0xcf, MpdbValue.of(item("9223372036854775808", 0x0200_4dd3)).format(),
                "int64 -> uint64 past 2^63-1");
        assertEquals((byte) 0xcc, MpdbValue.of(item("128", 0x0200_4d00)).format(), "fixint -> fewest bytes");
        assertEquals((byte) 0xce, MpdbValue.of(item("70000", 0x0200_4dce)).format(), "kept while it fits");
    }

    @Test
    void otherProtocolsItemsReadAsStringsBinaryOrJsonNumbers() {
        assertEquals(MpdbValue.Type.STRING, MpdbValue.of(item("plain", 0)).type());
        assertEquals(MpdbValue.Type.STRING, MpdbValue.of(item("42", 0)).type(), "no JSON flag: text");
        MpdbValue json = MpdbValue.of(item("42", 0x0200_0000));
        assertEquals(MpdbValue.Type.INTEGER, json.type(), "a JSON number from a Couchbase SDK");
        assertEquals(BigInteger.valueOf(42), json.number());
        assertEquals(MpdbValue.Type.STRING, MpdbValue.of(item("{\"a\":1}", 0x0200_0000)).type());
        assertEquals(MpdbValue.Type.STRING, MpdbValue.of(item("007", 0x0200_4dcc)).type(),
                "not a canonical number any more: text");
        MpdbValue binary = MpdbValue.of(new Item(new byte[] {(byte) 0xff, 0}, 0, 1, Item.NEVER));
        assertEquals(MpdbValue.Type.BINARY, binary.type());
    }

    @Test
    void namespacesKeepCollectionsAndNodeBucketsApart() throws Exception {
        MpdbNamespaces namespaces = new MpdbNamespaces("mpdb:");
        assertEquals("mpdb:global", namespaces.collection("global").name());
        assertEquals("mpdb:node:7", namespaces.bucket(7).name());
        assertEquals("mpdb:node%3A7", namespaces.collection("node:7").name(), "no collection is a node bucket");
        assertEquals("mpdb:caf%C3%A9%20x%25", namespaces.collection("café x%").name());
        assertEquals("mpdb:node:18446744073709551615", namespaces.bucket(-1L).name(), "node ids are unsigned");
        assertEquals("default", new MpdbNamespaces("").collection("default").name());
    }
}
