package kvgate.okuyama;

import static kvgate.testing.OkuyamaClient.b64;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import kvgate.testing.OkuyamaClient;
import kvgate.testing.RedisServers;
import kvgate.testing.TestGateway;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * okuyama's transactions and locks with {@code okuyama.transactions} on, on two gateways sharing one real Redis: a
 * lock taken through one holds writes through the other until it is released or expires; and without the setting,
 * the reference's answers without transaction mode.
 */
@Tag("servers")
class OkuyamaTransactionsTest {
    private static RedisServers redis;
    private static TestGateway first;
    private static TestGateway second;

    @BeforeAll
    static void start() throws Exception {
        redis = RedisServers.standalone();
        Map<String, String> settings = new HashMap<>(redis.backendSettings());
        settings.put("okuyama.transactions", "true");
        settings.put("okuyama.lock_wait_s", "3");
        first = TestGateway.start(settings);
        second = TestGateway.start(settings);
    }

    @AfterAll
    static void stop() throws Exception {
        first.close();
        second.close();
        redis.close();
    }

    private static String begin(OkuyamaClient client) throws Exception {
        String reply = client.call("37");
        assertTrue(reply.matches("37,true,\\d+"), reply);
        return reply.substring("37,true,".length());
    }

    /** A write on its own connection, whose reply the test waits for. */
    private static CompletableFuture<String> writeLater(TestGateway gateway, String line) {
        return CompletableFuture.supplyAsync(() -> {
            try (OkuyamaClient client = new OkuyamaClient(gateway.okuyamaPort())) {
                return client.call(line);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
    }

    @Test
    void aLockHoldsOtherTransactionsWritesOnEveryGatewayUntilReleased() throws Exception {
        String key = b64("locked-" + System.nanoTime());
        try (OkuyamaClient alice = new OkuyamaClient(first.okuyamaPort());
             OkuyamaClient bob = new OkuyamaClient(second.okuyamaPort())) {
            String mine = begin(alice);
            String theirs = begin(bob);
            assertFalse(mine.equals(theirs));
            assertEquals("30,true," + mine, alice.call("30," + key + "," + mine + ",60,0"));
            // Not re-entrant, as the reference: the holder's second lock fails too.
            assertEquals("30,false,", alice.call("30," + key + "," + mine + ",60,0"));
            assertEquals("30,false,", bob.call("30," + key + "," + theirs + ",60,0"));
            // The holder writes at once; another transaction's write, and one outside any, wait.
            assertEquals("1,true,OK", alice.call("1," + key + ",(B)," + mine + "," + b64("alice")));
            CompletableFuture<String> bobs = writeLater(second, "1," + key + ",(B)," + theirs + "," + b64("bob"));
            CompletableFuture<String> removal = writeLater(first, "5," + key + ",0");
            Thread.sleep(500);
            assertFalse(bobs.isDone() || removal.isDone(), "writes of a locked key wait");
            assertEquals("2,true," + b64("alice"), bob.call("2," + key), "reads do not wait");
            assertEquals("31,false,", bob.call("31," + key + "," + theirs), "only the holder releases");
            assertEquals("31,true," + mine, alice.call("31," + key + "," + mine));
            assertEquals("1,true,OK", bobs.get(5, TimeUnit.SECONDS));
            assertTrue(removal.get(5, TimeUnit.SECONDS).startsWith("5,"));
            assertEquals("31,true," + mine, alice.call("31," + key + "," + mine), "a free key is released");
        }
    }

    @Test
    void locksExcludeEachOtherAcrossClientsAndGateways() throws Exception {
        // Four clients, two on each gateway, each adding one to a counter twenty times under the key's lock (read,
        // then write back plus one): a lost update would show as a total short of 80.
        String counter = b64("guarded-" + System.nanoTime());
        try (OkuyamaClient setup = new OkuyamaClient(first.okuyamaPort())) {
            assertEquals("1,true,OK", setup.call("1," + counter + ",(B),0," + b64("0")));
        }
        List<CompletableFuture<Void>> clients = new ArrayList<>();
        for (int c = 0; c < 4; c++) {
            TestGateway through = c % 2 == 0 ? first : second;
            clients.add(CompletableFuture.runAsync(() -> {
                try (OkuyamaClient client = new OkuyamaClient(through.okuyamaPort())) {
                    String code = begin(client);
                    for (int i = 0; i < 20; i++) {
                        assertEquals("30,true," + code, client.call("30," + counter + "," + code + ",10,5"));
                        String read = client.call("2," + counter);
                        long now = Long.parseLong(OkuyamaClient.text(read.substring("2,true,".length())));
                        assertEquals("1,true,OK", client.call("1," + counter + ",(B)," + code + ","
                                + b64(Long.toString(now + 1))));
                        assertEquals("31,true," + code, client.call("31," + counter + "," + code));
                    }
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }));
        }
        CompletableFuture.allOf(clients.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
        try (OkuyamaClient check = new OkuyamaClient(second.okuyamaPort())) {
            assertEquals("2,true," + b64("80"), check.call("2," + counter));
        }
    }

    @Test
    void lockDataWaitsForALockToGoAndLocksExpire() throws Exception {
        String key = b64("expiring-" + System.nanoTime());
        try (OkuyamaClient alice = new OkuyamaClient(first.okuyamaPort());
             OkuyamaClient bob = new OkuyamaClient(second.okuyamaPort())) {
            String mine = begin(alice);
            String theirs = begin(bob);
            assertEquals("30,true," + mine, alice.call("30," + key + "," + mine + ",1,0"));
            // Bob waits up to 3 s for the lock, which expires after 1 s.
            long asked = System.nanoTime();
            assertEquals("30,true," + theirs, bob.call("30," + key + "," + theirs + ",30,3"));
            long waited = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - asked);
            assertTrue(waited >= 300 && waited < 3000, "waited " + waited + " ms");
            assertEquals("31,true," + theirs, bob.call("31," + key + "," + theirs));
        }
    }

    @Test
    void aWriteWaitsNoLongerThanLockWait() throws Exception {
        String key = b64("stuck-" + System.nanoTime());
        try (OkuyamaClient alice = new OkuyamaClient(first.okuyamaPort());
             OkuyamaClient bob = new OkuyamaClient(second.okuyamaPort())) {
            String mine = begin(alice);
            assertEquals("30,true," + mine, alice.call("30," + key + "," + mine + ",0,0"));
            long asked = System.nanoTime();
            assertEquals("13,error,the key is locked by another transaction", bob.call("13," + key + ",0,"
                    + b64("1") + ",1"));
            long waited = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - asked);
            assertTrue(waited >= 2500 && waited < 6000, "waited " + waited + " ms");
            assertEquals("2,false,", bob.call("2," + key), "nothing was written");
            assertEquals(1, second.gateway().metrics().refusals("okuyama", "lock_wait").count(), "counted");
            assertEquals("31,true," + mine, alice.call("31," + key + "," + mine));
            assertEquals("13,true," + b64("1"), bob.call("13," + key + ",0," + b64("1") + ",1"));
        }
    }

    @Test
    void withoutTransactionModeTheReferenceDefaultsAnswer() throws Exception {
        try (TestGateway plain = TestGateway.start(Map.of());
             OkuyamaClient client = new OkuyamaClient(plain.okuyamaPort())) {
            assertEquals("37,false,No Transaction Mode", client.call("37"));
            assertEquals("30,false,", client.call("30," + b64("k") + ",1,10,0"));
            assertEquals("31,false,", client.call("31," + b64("k") + ",1"));
            assertEquals("1,true,OK", client.call("1," + b64("k") + ",(B),1," + b64("v")));
        }
    }
}
