package kvgate.memcached;

import static kvgate.testing.BinaryClient.GET;
import static kvgate.testing.BinaryClient.NONE;
import static kvgate.testing.BinaryClient.SET;
import static kvgate.testing.BinaryClient.bytes;
import static kvgate.testing.BinaryClient.frame;
import static kvgate.testing.BinaryClient.storeExtras;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import kvgate.memcached.binary.BinaryStatus;
import kvgate.testing.BinaryClient;
import kvgate.testing.BinaryClient.Response;
import kvgate.testing.RedisServers;
import kvgate.testing.TestGateway;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Redis loses the backend's scripts behind the gateway's back (SCRIPT FLUSH, as after a restart or on a replica
 * promoted without them): a client's pipelined set then get never reads the value the set replaced. The set may
 * fail for now, since its script did not run; the scripts are loaded again and a retry succeeds.
 */
@Tag("servers")
class RedisScriptsTest {
    private static final int TEMPORARY_FAILURE = BinaryStatus.TEMPORARY_FAILURE.code();

    @Test
    void aSetPipelinedBeforeAGetAfterTheScriptsWereLostIsNeverReadAsTheOldValue() throws Exception {
        try (RedisServers servers = RedisServers.standalone();
             TestGateway gateway = TestGateway.start(servers.backendSettings());
             BinaryClient client = new BinaryClient(gateway.port(), 10_000)) {
            assertEquals(0, client.set("k", "v1", 0, 0).status());
            assertEquals("OK", RedisServers.cli(servers.port(0), "SCRIPT", "FLUSH").strip());
            client.send(frame(SET, storeExtras(0, 0), bytes("k"), bytes("v2"), 0, 1),
                    frame(GET, NONE, bytes("k"), NONE, 0, 2));
            Response set = client.read();
            Response get = client.read();
            if (set.status() == 0) {
                assertEquals("v2", get.valueText(), "the get was answered before the set pipelined ahead of it");
            } else {
                assertEquals(TEMPORARY_FAILURE, set.status());
                assertEquals("v1", get.valueText(), "a set that failed for now changed nothing");
            }
            long deadline = System.currentTimeMillis() + 10_000;
            while (client.set("k", "v3", 0, 0).status() != 0) {
                assertTrue(System.currentTimeMillis() < deadline, "the scripts were not loaded again");
                Thread.sleep(50);
            }
            assertEquals("v3", client.get("k").valueText());
        }
    }
}
