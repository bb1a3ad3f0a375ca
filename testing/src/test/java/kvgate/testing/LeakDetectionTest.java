package kvgate.testing;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The leak check that guards every test class must itself catch a leak, or its silence proves nothing. */
class LeakDetectionTest {

    @Test
    void anUnreleasedBufferIsReported() {
        leakOneBuffer();
        List<String> leaks = LeakDetection.collectLeaks();
        assertFalse(leaks.isEmpty(), "a buffer dropped without release must be reported");
        assertTrue(leaks.get(0).contains("LEAK"), leaks.get(0));
    }

    @Test
    void releasedBuffersAreNotReported() {
        ByteBuf buffer = PooledByteBufAllocator.DEFAULT.buffer(64);
        buffer.writeLong(42);
        buffer.release();
        assertTrue(LeakDetection.collectLeaks().isEmpty());
    }

    private static void leakOneBuffer() {
        ByteBuf buffer = PooledByteBufAllocator.DEFAULT.buffer(64);
        buffer.writeLong(7);
    }
}
