package kvgate.memcached.binary;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.HexFormat;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The framing extras' reader alone: escapes read in the right order, and any bytes at all either read or refused
 * with a protocol status, never an exception of another kind (the decoder hands it whatever a client sent).
 */
class FrameExtrasTest {
    private static FrameExtras read(int opcode, int... bytes) throws BinaryRefusal {
        byte[] framing = new byte[bytes.length];
        for (int i = 0; i < bytes.length; i++) {
            framing[i] = (byte) bytes[i];
        }
        return FrameExtras.read(framing, Opcode.of(opcode));
    }

    private static BinaryStatus refusal(int opcode, int... bytes) {
        try {
            read(opcode, bytes);
        } catch (BinaryRefusal refusal) {
            return refusal.status();
        }
        return BinaryStatus.SUCCESS;
    }

    @Test
    void escapesAreReadIdFirstThenLength() throws Exception {
        // Id 15 + 0 = 15 (unknown), its length escaped too: 15 + 1 = 16 bytes of data, all present.
        int[] escaped = new int[2 + 1 + 16];
        escaped[0] = 0xff;
        escaped[1] = 0x00; // the id's escape byte
        escaped[2] = 0x01; // the length's escape byte
        assertEquals(BinaryStatus.UNKNOWN_FRAME_INFO, refusal(0x01, escaped));
        // One byte short of the escaped length: malformed, before the id is judged.
        assertEquals(BinaryStatus.INVALID_ARGUMENTS, refusal(0x01, java.util.Arrays.copyOf(escaped, 18)));
        // Preserve TTL with its length escaped to 15 bytes: it takes none.
        int[] long_ = new int[2 + 15];
        long_[0] = 0x5f;
        assertEquals(BinaryStatus.INVALID_ARGUMENTS, refusal(0x01, long_));
        assertTrue(read(0x01, 0x50).preserveTtl());
        assertFalse(read(0x01, 0x00, 0x22, 0, 7).preserveTtl(), "a barrier and a stream id ask nothing");
        assertTrue(read(0x01, 0x00, 0x50, 0x22, 0, 7).preserveTtl());
    }

    @Test
    void anyBytesAreReadOrRefusedWithAStatus() {
        SplittableRandom random = new SplittableRandom(20261126);
        int[] opcodes = {0x00, 0x01, 0x02, 0x03, 0x11, 0x1c, 0xc8, 0xd0, 0xd1};
        for (int i = 0; i < 200_000; i++) {
            byte[] framing = new byte[random.nextInt(12)];
            for (int b = 0; b < framing.length; b++) {
                // Mostly the ids and lengths that mean something, now and then anything.
                framing[b] = (byte) (random.nextInt(4) == 0 ? random.nextInt(256)
                        : random.nextInt(8) << 4 | random.nextInt(4));
            }
            Opcode opcode = Opcode.of(opcodes[random.nextInt(opcodes.length)]);
            try {
                FrameExtras read = FrameExtras.read(framing, opcode);
                assertTrue(!read.preserveTtl() || opcode.takesPreserveTtl(),
                        "Preserve TTL only where the command takes it: " + HexFormat.of().formatHex(framing));
            } catch (BinaryRefusal refusal) {
                assertTrue(refusal.status() != BinaryStatus.SUCCESS);
            } catch (RuntimeException e) {
                fail(opcode + " " + HexFormat.of().formatHex(framing) + ": " + e);
            }
        }
    }
}
