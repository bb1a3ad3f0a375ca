package kvgate.counter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import kvgate.testing.CounterClient;
import kvgate.testing.TestGateway;
import org.junit.jupiter.api.Test;

/**
 * Many connections acquiring and releasing the same counters at once never over-grant: at every quiescent point
 * each counter's consumption is at most its maximum and equals the sum of what the clients hold.
 */
class CounterConcurrencyTest {
    private static final String[] NAMES = {"hot-a", "hot-b", "hot-c"};
    private static final long MAXIMUM = 10;
    private static final int CLIENTS = 16;
    private static final int ROUNDS = 5;
    private static final int OPS_PER_ROUND = 150;

    @Test
    void consumptionNeverExceedsTheMaximumAndEqualsWhatClientsHold() throws Exception {
        try (TestGateway gateway = TestGateway.start(java.util.Map.of("io_threads", "4"))) {
            ExecutorService pool = Executors.newFixedThreadPool(CLIENTS);
            long[][] held = new long[CLIENTS][NAMES.length];
            CyclicBarrier roundDone = new CyclicBarrier(CLIENTS + 1);
            CyclicBarrier checked = new CyclicBarrier(CLIENTS + 1);
            List<Future<?>> workers = new ArrayList<>();
            for (int client = 0; client < CLIENTS; client++) {
                int me = client;
                workers.add(pool.submit(() -> {
                    Random random = new Random(1000 + me);
                    try (CounterClient c = new CounterClient(gateway.counterPort())) {
                        for (int round = 0; round < ROUNDS; round++) {
                            for (int op = 0; op < OPS_PER_ROUND; op++) {
                                int n = random.nextInt(NAMES.length);
                                if (random.nextBoolean() || held[me][n] == 0) {
                                    long amount = 1 + random.nextInt(3);
                                    CounterClient.Response r = c.acquire(NAMES[n], amount, MAXIMUM);
                                    assertTrue(r.status() == 0 || r.status() == 0x21, "status " + r.status());
                                    if (r.status() == 0) {
                                        held[me][n] += amount;
                                    }
                                } else {
                                    long amount = 1 + random.nextInt((int) held[me][n]);
                                    assertEquals(0, c.release(NAMES[n], amount).status());
                                    held[me][n] -= amount;
                                }
                            }
                            roundDone.await(30, TimeUnit.SECONDS);
                            checked.await(30, TimeUnit.SECONDS);
                        }
                    }
                    return null;
                }));
            }
            try (CounterClient observer = new CounterClient(gateway.counterPort())) {
                for (int round = 0; round < ROUNDS; round++) {
                    roundDone.await(60, TimeUnit.SECONDS);
                    for (int n = 0; n < NAMES.length; n++) {
                        long sum = 0;
                        for (long[] client : held) {
                            sum += client[n];
                        }
                        CounterClient.Response r = observer.get(NAMES[n]);
                        long consumption = r.status() == 0 ? r.u32(0) : 0;
                        assertTrue(consumption <= MAXIMUM, NAMES[n] + " over-granted: " + consumption);
                        assertEquals(sum, consumption, NAMES[n] + " in round " + round);
                    }
                    checked.await(60, TimeUnit.SECONDS);
                }
                for (Future<?> worker : workers) {
                    worker.get(60, TimeUnit.SECONDS);
                }
                pool.shutdown();
                // Every client has closed: all it held is released.
                for (String name : NAMES) {
                    long deadline = System.currentTimeMillis() + 5000;
                    while (observer.get(name).u32(0) != 0 && System.currentTimeMillis() < deadline) {
                        Thread.sleep(20);
                    }
                    assertEquals(0, observer.get(name).u32(0), name);
                }
            }
        }
    }
}
