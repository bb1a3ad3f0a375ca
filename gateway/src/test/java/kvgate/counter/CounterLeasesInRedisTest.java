package kvgate.counter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import kvgate.testing.CounterClient;
import kvgate.testing.RedisServers;
import kvgate.testing.TestGateway;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The leases of counters kept in a real redis-server: what the gateway renews, and what it gives back when a
 * connection closes while its own connection to Redis is being re-established.
 */
@Tag("servers")
class CounterLeasesInRedisTest {
    private static final Pattern EVALSHA_CALLS = Pattern.compile("cmdstat_evalsha:calls=(\\d+)");

    private static long scriptCalls(int port) throws Exception {
        Matcher calls = EVALSHA_CALLS.matcher(RedisServers.cli(port, "INFO", "commandstats"));
        return calls.find() ? Long.parseLong(calls.group(1)) : 0;
    }

    @Test
    void aConnectionClosedWhileRedisReconnectsIsGivenBackWithoutWaitingForItsLease() throws Exception {
        RedisServers redis = RedisServers.standalone();
        int port = redis.port(0);
        try (TestGateway gateway = TestGateway.start(redis, Map.of("counter.store", "redis",
                "counter.lease_ms", "30000"))) {
            for (int round = 0; round < 3; round++) {
                String lock = "lock-" + round;
                CounterClient holder = new CounterClient(gateway.counterPort());
                assertEquals(0, holder.acquire(lock, 1, 1).status());
                // Redis drops every client connection, the gateway's too; the holder goes while they come back.
                RedisServers.cli(port, "CLIENT", "KILL", "TYPE", "normal");
                holder.close();
                long start = System.nanoTime();
                try (CounterClient next = new CounterClient(gateway.counterPort())) {
                    int status = -1;
                    while (status != 0 && System.nanoTime() - start < 10_000_000_000L) {
                        status = next.acquire(lock, 1, 1).status();
                        if (status != 0) {
                            Thread.sleep(50);
                        }
                    }
                    assertEquals(0, status, "round " + round + ": the lock was given back well before its 30 s lease");
                }
            }
        }
    }

    @Test
    void countersAnOwnerReleasedInFullAreNoLongerRenewedAndThoseItHoldsStillAre() throws Exception {
        RedisServers redis = RedisServers.standalone();
        int port = redis.port(0);
        try (TestGateway gateway = TestGateway.start(redis, Map.of("counter.store", "redis",
                "counter.lease_ms", "1500"));
             CounterClient owner = new CounterClient(gateway.counterPort());
             CounterClient other = new CounterClient(gateway.counterPort())) {
            for (int i = 0; i < 300; i++) {
                assertEquals(0, owner.acquire("job-" + i, 1, 10).status());
                assertEquals(0, owner.release("job-" + i, 1).status());
            }
            assertEquals(0, owner.acquire("kept", 1, 1).status());
            Thread.sleep(1_200); // renewals every 500 ms: the first after the releases forgets the 300
            long before = scriptCalls(port);
            Thread.sleep(1_500);
            long renewals = scriptCalls(port) - before;
            assertTrue(renewals < 30, renewals + " scripts run in three renewal periods; 900 if the 300 were renewed");
            Thread.sleep(2_000);
            assertEquals(0x21, other.acquire("kept", 1, 1).status(),
                    "the counter still held is still renewed, past two of its leases");
        }
    }
}
