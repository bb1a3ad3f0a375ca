package kvgate.testing;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.util.ResourceLeakDetector;
import io.netty.util.ResourceLeakDetectorFactory;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Fails a test class when Netty reports a leaked buffer during it. Registered for every test class (by JUnit's
 * extension auto-detection), installed before any buffer class loads, so it sees every leak Netty's paranoid
 * detector finds; Netty itself would only log them.
 */
public final class LeakDetection implements AfterAllCallback {
    private static final List<String> LEAKS = new ArrayList<>();

    static {
        ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.PARANOID);
        ResourceLeakDetectorFactory.setResourceLeakDetectorFactory(new ResourceLeakDetectorFactory() {
            @Override
            public <T> ResourceLeakDetector<T> newResourceLeakDetector(Class<T> resource, int samplingInterval,
                                                                         long maxActive) {
                return new ResourceLeakDetector<>(resource, samplingInterval) {
                    @Override
                    protected boolean needReport() {
                        return true;
                    }

                    @Override
                    protected void reportTracedLeak(String resourceType, String records) {
                        record("LEAK " + resourceType + records);
                    }

                    @Override
                    protected void reportUntracedLeak(String resourceType) {
                        record("LEAK " + resourceType + " (untraced)");
                    }
                };
            }
        });
    }

    private static synchronized void record(String leak) {
        LEAKS.add(leak);
    }

    /** Collects garbage and lets the detector look at what was collected; returns and clears the leaks found. */
    public static synchronized List<String> collectLeaks() {
        for (int round = 0; round < 5; round++) {
            System.gc();
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            // The detector checks for collected, unreleased buffers whenever a buffer is allocated.
            for (ByteBufAllocator allocator : List.of(PooledByteBufAllocator.DEFAULT, UnpooledByteBufAllocator.DEFAULT,
                    ByteBufAllocator.DEFAULT)) {
                ByteBuf probe = allocator.buffer(8);
                probe.release();
            }
        }
        List<String> found = new ArrayList<>(LEAKS);
        LEAKS.clear();
        return found;
    }

    @Override
    public void afterAll(ExtensionContext context) {
        List<String> leaks = collectLeaks();
        if (!leaks.isEmpty()) {
            throw new AssertionError(leaks.size() + " buffer leak(s) in " + context.getDisplayName() + ":\n"
                    + String.join("\n", leaks));
        }
    }
}
