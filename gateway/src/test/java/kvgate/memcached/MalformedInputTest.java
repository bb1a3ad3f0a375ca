package kvgate.memcached;

import static kvgate.testing.BinaryClient.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.Random;
import kvgate.testing.BinaryClient;
import kvgate.testing.BinaryClient.Response;
import kvgate.testing.TestGateway;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Bad input gets the protocol's error status; the connection survives wherever the framing is intact, and nothing
 * malformed leaks a buffer (checked after the class by the leak detector) or stops the gateway serving others.
 */
class MalformedInputTest {
    private static final int MAX_ITEM = 4096;
    private static final int MAX_FRAME = 65536;
    private static TestGateway gateway;

    @BeforeAll
    static void start() throws Exception {
        gateway = TestGateway.start(Map.of("max_item_size", Integer.toString(MAX_ITEM),
                "memcached.max_frame", Integer.toString(MAX_FRAME)));
    }

    @AfterAll
    static void stop() {
        gateway.close();
    }


    private static byte[] withByte(byte[] frame, int index, int value) {
        frame[index] = (byte) value;
        return frame;
    }

    @Test
    void badMagicIsInvalidAndTheConnectionGoesOn() throws Exception {
        try (BinaryClient c = new BinaryClient(gateway.port())) {
            // A binary request first: the first byte of a connection chooses its protocol, and 0x80 is binary.
            c.assertUsable();
            for (int magic : new int[] {0x81, 0x00, 0x18, 0xff}) {
                c.send(withByte(frame(GET, NONE, bytes("k"), NONE, 0, 31), 0, magic));
                Response r = c.read();
                assertEquals(0x0004, r.status(), "magic " + magic);
                assertEquals(31, r.opaque());
                assertEquals(0, r.cas());
                c.assertUsable();
            }
        }
    }

    @Test
    void keyAndExtrasLongerThanTheBodyAreInvalid() throws Exception {
        try (BinaryClient c = new BinaryClient(gateway.port())) {
            ByteBuffer header = ByteBuffer.allocate(24 + 5);
            header.put((byte) 0x80).put((byte) SET).putShort((short) 10).put((byte) 8).put((byte) 0)
                    .putShort((short) 0).putInt(5).putInt(77).putLong(0).put(new byte[5]);
            c.send(header.array());
            Response r = c.read();
            assertEquals(0x0004, r.status());
            assertEquals(77, r.opaque());
            c.assertUsable();
        }
    }

    @Test
    void aKeyOver250BytesIsInvalid() throws Exception {
        try (BinaryClient c = new BinaryClient(gateway.port())) {
            byte[] key = bytes("k".repeat(251));
            assertEquals(0x0004, c.call(SET, storeExtras(0, 0), key, bytes("v"), 0).status());
            assertEquals(0x0004, c.call(GET, NONE, key, NONE, 0).status());
            assertEquals(0, c.call(SET, storeExtras(0, 0), bytes("k".repeat(250)), bytes("v"), 0).status());
            c.assertUsable();
        }
    }

    @Test
    void extrasOfTheWrongSizeForTheOpcodeAreInvalid() throws Exception {
        Object[][] cases = {
                {SET, new byte[4], bytes("k"), bytes("v")},
                {ADD, NONE, bytes("k"), bytes("v")},
                {GET, new byte[4], bytes("k"), NONE},
                {INCREMENT, new byte[8], bytes("k"), NONE},
                {DECREMENT, new byte[21], bytes("k"), NONE},
                {TOUCH, NONE, bytes("k"), NONE},
                {GAT, new byte[8], bytes("k"), NONE},
                {FLUSH, new byte[2], NONE, NONE},
                {VERBOSITY, NONE, NONE, NONE},
                {DELETE, new byte[4], bytes("k"), NONE},
                {APPEND, new byte[8], bytes("k"), bytes("v")},
                {NOOP, new byte[4], NONE, NONE},
        };
        try (BinaryClient c = new BinaryClient(gateway.port())) {
            for (Object[] test : cases) {
                Response r = c.call((int) test[0], (byte[]) test[1], (byte[]) test[2], (byte[]) test[3], 0);
                assertEquals(0x0004, r.status(), "opcode " + test[0] + " with " + ((byte[]) test[1]).length
                        + " bytes of extras");
                assertEquals((int) test[0], r.opcode());
                assertEquals(0, r.extras().length);
            }
            c.assertUsable();
        }
    }

    @Test
    void keysAndValuesWhereTheOpcodeTakesNoneAreInvalid() throws Exception {
        try (BinaryClient c = new BinaryClient(gateway.port())) {
            assertEquals(0x0004, c.call(GET, NONE, NONE, NONE, 0).status(), "get without a key");
            assertEquals(0x0004, c.call(NOOP, NONE, bytes("k"), NONE, 0).status(), "noop with a key");
            assertEquals(0x0004, c.call(GET, NONE, bytes("k"), bytes("v"), 0).status(), "get with a value");
            assertEquals(0x0004, c.call(DELETE, NONE, bytes("k"), bytes("v"), 0).status(), "delete with a value");
            assertEquals(0x0004, c.call(HELLO, NONE, bytes("a"), new byte[] {0, 3, 0}, 0).status(),
                    "hello with an odd feature list");
            c.assertUsable();
        }
    }

    @Test
    void unknownOpcodesAreUnknownCommands() throws Exception {
        try (BinaryClient c = new BinaryClient(gateway.port())) {
            for (int opcode : new int[] {0x23, 0x40, 0x88, 0xa1, 0xbd, 0xfd, 0xff}) {
                Response r = c.call(opcode, NONE, NONE, NONE, 0);
                assertEquals(0x0081, r.status(), "opcode " + opcode);
                assertEquals(opcode, r.opcode());
                assertEquals("Unknown command", r.valueText());
            }
            c.assertUsable();
        }
    }

    @Test
    void aNonRawDatatypeIsInvalidUntilNegotiated() throws Exception {
        try (BinaryClient c = new BinaryClient(gateway.port())) {
            c.send(withByte(frame(GET, NONE, bytes("k"), NONE, 0, 5), 5, 1));
            assertEquals(0x0004, c.read().status());
            c.assertUsable();
        }
    }

    @Test
    void aValueOverMaxItemSizeIsTooLargeRemovesTheOldValueAndKeepsTheConnection() throws Exception {
        try (BinaryClient c = new BinaryClient(gateway.port())) {
            c.set("big", "old", 0, 0);
            byte[] tooBig = new byte[MAX_ITEM + 1];
            Response r = c.call(SET, storeExtras(0, 0), bytes("big"), tooBig, 0);
            assertEquals(0x0003, r.status());
            assertEquals(0x0001, c.get("big").status(), "as memcached: a failed set leaves no stale value");
            c.set("big-add", "old", 0, 0);
            assertEquals(0x0003, c.call(APPEND, NONE, bytes("big-add"), tooBig, 0).status());
            assertEquals("old", c.get("big-add").valueText(), "only a set drops the old value");
            assertEquals(0, c.call(SET, storeExtras(0, 0), bytes("big"), new byte[MAX_ITEM], 0).status(),
                    "exactly max_item_size is accepted");
            assertEquals(0x0003, c.call(APPEND, NONE, bytes("big"), bytes("x"), 0).status(),
                    "an append past the limit is too large");
            c.assertUsable();
        }
    }

    @Test
    void aBodyOverTheFrameLimitIsAnsweredThenTheConnectionClosesWithoutWaitingForTheBody() throws Exception {
        try (BinaryClient c = new BinaryClient(gateway.port())) {
            ByteBuffer header = ByteBuffer.allocate(24);
            header.put((byte) 0x80).put((byte) SET).putShort((short) 1).put((byte) 8).put((byte) 0)
                    .putShort((short) 0).putInt(0xfffffff0).putInt(66).putLong(0);
            c.send(header.array()); // claims ~4 GiB and sends none of it
            Response r = c.read();
            assertEquals(0x0003, r.status());
            assertEquals(66, r.opaque());
            assertTrue(c.closedByServer());
        }
        try (BinaryClient c = new BinaryClient(gateway.port())) {
            c.assertUsable();
        }
        assertTrue(gateway.gateway().metrics().refusals("memcached", "max_frame").count() >= 1, "counted");
    }

    @Test
    void framesArrivingOneByteAtATimeAreReassembled() throws Exception {
        try (BinaryClient c = new BinaryClient(gateway.port())) {
            byte[] set = frame(SET, storeExtras(1, 0), bytes("dribble"), bytes("slowly"), 0, 3);
            for (byte b : set) {
                c.send(new byte[] {b});
            }
            assertEquals(0, c.read().status());
            assertEquals("slowly", c.get("dribble").valueText());
        }
    }

    @Test
    void truncatedFramesAndRandomBytesNeverStopTheGateway() throws Exception {
        Random random = new Random(20261122);
        for (int round = 0; round < 200; round++) {
            try (Socket socket = new Socket("127.0.0.1", gateway.port())) {
                socket.setSoTimeout(2000);
                OutputStream out = socket.getOutputStream();
                byte[] garbage = new byte[random.nextInt(300)];
                random.nextBytes(garbage);
                if (round % 3 == 0 && garbage.length > 0) {
                    garbage[0] = (byte) 0x80; // mostly-plausible headers reach deeper into the decoder
                }
                if (round % 5 == 0) {
                    out.write(frame(SET, storeExtras(0, 0), bytes("fuzz"), bytes("v"), 0, 1));
                }
                out.write(garbage);
                out.flush();
                socket.shutdownOutput();
                InputStream in = socket.getInputStream();
                try {
                    while (in.read(new byte[4096]) >= 0) {
                        // drain replies until the gateway closes or goes quiet
                    }
                } catch (java.net.SocketTimeoutException e) {
                    // the gateway may keep a half-closed connection waiting for the rest of a frame
                }
            }
        }
        try (BinaryClient c = new BinaryClient(gateway.port())) {
            assertEquals(0, c.set("after-fuzz", "ok", 0, 0).status());
            assertEquals("ok", c.get("after-fuzz").valueText());
        }
    }
}
