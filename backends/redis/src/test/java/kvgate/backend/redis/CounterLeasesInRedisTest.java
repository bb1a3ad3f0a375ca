package kvgate.backend.redis;

import static kvgate.testing.BackendUnderTest.bytes;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.regex.Matcher;
import java.util.regex.Pattern;
import kvgate.spi.CounterRules;
import kvgate.spi.Namespace;
import kvgate.spi.Operation;
import kvgate.spi.Status;
import kvgate.testing.BackendUnderTest;
import kvgate.testing.RedisServers;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The leases of counters kept in a real redis-server: what the backend renews, and what it gives back when an
 * owner (a client connection) goes while the backend's own connection to Redis is being re-established.
 */
@Tag("servers")
class CounterLeasesInRedisTest {
    private static final Pattern EVALSHA_CALLS = Pattern.compile("cmdstat_evalsha:calls=(\\d+)");
    private static final Namespace COUNTERS = new Namespace("counters");

    private static long scriptCalls(int port) throws Exception {
        Matcher calls = EVALSHA_CALLS.matcher(RedisServers.cli(port, "INFO", "commandstats"));
        return calls.find() ? Long.parseLong(calls.group(1)) : 0;
    }

    @Test
    void anOwnerGoneWhileRedisReconnectsIsGivenBackWithoutWaitingForItsLease() throws Exception {
        try (RedisServers servers = RedisServers.standalone(); BackendUnderTest redis = open(servers, 30_000)) {
            int port = servers.port(0);
            for (int round = 0; round < 3; round++) {
                String lock = "lock-" + round;
                String holder = "holder-" + round;
                assertEquals(Status.OK, redis.run(acquire(lock, holder)).status());
                // Redis drops every client connection, the backend's too; the holder goes while they come back.
                RedisServers.cli(port, "CLIENT", "KILL", "TYPE", "normal");
                redis.backend().execute(new Operation.ReleaseAll(COUNTERS, holder));
                long start = System.nanoTime();
                Status status = null;
                while (status != Status.OK && System.nanoTime() - start < 10_000_000_000L) {
                    status = redis.run(acquire(lock, "next-" + round)).status();
                    if (status != Status.OK) {
                        Thread.sleep(50);
                    }
                }
                assertEquals(Status.OK, status, "round " + round + ": the lock was given back well before its 30 s "
                        + "lease");
            }
        }
    }

    @Test
    void countersAnOwnerReleasedInFullAreNoLongerRenewedAndThoseItHoldsStillAre() throws Exception {
        try (RedisServers servers = RedisServers.standalone(); BackendUnderTest redis = open(servers, 1500)) {
            int port = servers.port(0);
            for (int i = 0; i < 300; i++) {
                assertEquals(Status.OK, redis.run(new Operation.Acquire(COUNTERS, bytes("job-" + i), 1, 10, "owner"))
                        .status());
                assertEquals(Status.OK, redis.run(new Operation.Release(COUNTERS, bytes("job-" + i), 1, "owner"))
                        .status());
            }
            assertEquals(Status.OK, redis.run(acquire("kept", "owner")).status());
            Thread.sleep(1_200); // renewals every 500 ms: the first after the releases forgets the 300
            long before = scriptCalls(port);
            Thread.sleep(1_500);
            long renewals = scriptCalls(port) - before;
            assertTrue(renewals < 30, renewals + " scripts run in three renewal periods; 900 if the 300 were renewed");
            Thread.sleep(2_000);
            assertEquals(Status.LIMIT_REACHED, redis.run(acquire("kept", "other")).status(),
                    "the counter still held is still renewed, past two of its leases");
        }
    }

    /** One of a counter whose maximum is 1: a lock. */
    private static Operation acquire(String name, String owner) {
        return new Operation.Acquire(COUNTERS, bytes(name), 1, 1, owner);
    }

    private static BackendUnderTest open(RedisServers servers, long leaseMillis) throws Exception {
        return new BackendUnderTest(new RedisBackendFactory(),
                BackendUnderTest.under("redis", servers.backendSettings()),
                new CounterRules(CounterRules.DEFAULT.statsIntervalSeconds(), leaseMillis));
    }
}
