package kvgate.mpdb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.util.Map;
import kvgate.testing.MpdbClient;
import kvgate.testing.TestGateway;
import org.junit.jupiter.api.Test;

/**
 * MPDB cannot be made a reflector: a burst of small GETs naming a large value from one source address earns that
 * address only its reply budget, while another source is served in full.
 */
class MpdbReflectionTest {
    @Test
    void aBurstOfSmallGetsForALargeValueIsCutToItsSourcesBudget() throws Exception {
        try (TestGateway gateway = TestGateway.start(Map.of("mpdb.reply_ratio", "2", "mpdb.reply_rate", "0",
                "mpdb.reply_burst", "12k"));
             MpdbClient victim = new MpdbClient(InetAddress.getByName("127.0.0.1"),
                     InetAddress.getByName("127.0.0.1"), gateway.mpdbPort());
             MpdbClient other = new MpdbClient(InetAddress.getByName("127.0.0.2"),
                     InetAddress.getByName("127.0.0.1"), gateway.mpdbPort())) {
            String large = "x".repeat(4000);
            assertNotNull(other.call(MpdbClient.insert(1, Map.of("large", large))));
            int requests = 50;
            int requestBytes = 0;
            for (int echo = 1; echo <= requests; echo++) {
                byte[] get = MpdbClient.get(echo, "large");
                requestBytes += get.length;
                victim.send(get);
            }
            int replies = 0;
            while (victim.receive(1000) != null) {
                replies++;
            }
            // 12 KiB to start with, and twice what the source sent: about 3 replies of 4 KB, not 50.
            long allowance = 12 * 1024 + 2L * requestBytes;
            assertTrue(replies >= 2 && replies <= allowance / 4000, replies + " replies for " + requests);
            assertEquals(requests - replies, gateway.gateway().metrics().datagramsDropped("mpdb", "reply_budget"));
            // Another source has its own budget.
            MpdbClient.Reply read = other.call(MpdbClient.get(2, "large"));
            assertEquals(1, read.result().size(), "the other source got its value");
        }
    }
}
