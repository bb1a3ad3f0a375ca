package kvgate.app;

import static kvgate.testing.BinaryClient.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.nio.file.Path;
import java.util.Map;
import kvgate.testing.BinaryClient;
import kvgate.testing.BinaryClient.Response;
import kvgate.testing.ChildGateway;
import kvgate.testing.TestGateway;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Every write the gateway acknowledged is there after a restart, whether the stop was clean or a kill -9. */
class DurabilityTest {

    /** Pipelines {@code count} sets and waits for every acknowledgement; returns the highest CAS acknowledged. */
    private static long writeAcknowledged(BinaryClient c, String prefix, int count) throws Exception {
        ByteArrayOutputStream batch = new ByteArrayOutputStream();
        for (int i = 0; i < count; i++) {
            batch.write(frame(SET, storeExtras(i, 0), bytes(prefix + i), bytes("value-" + i), 0, i));
        }
        c.send(batch.toByteArray());
        long maxCas = 0;
        for (int i = 0; i < count; i++) {
            Response r = c.read();
            assertEquals(0, r.status());
            assertEquals(i, r.opaque());
            maxCas = Math.max(maxCas, r.cas());
        }
        return maxCas;
    }

    private static void assertAllPresent(BinaryClient c, String prefix, int count) throws Exception {
        for (int i = 0; i < count; i++) {
            Response r = c.get(prefix + i);
            assertEquals(0, r.status(), "acknowledged item " + prefix + i + " was lost");
            assertEquals("value-" + i, r.valueText());
            assertEquals(i, r.flags());
        }
    }

    @Test
    void aCleanStopAndRestartKeepsEveryAcknowledgedWrite(@TempDir Path data) throws Exception {
        Map<String, String> settings = Map.of("local.path", data.toString());
        long casBefore;
        try (TestGateway gateway = TestGateway.start(settings); BinaryClient c = new BinaryClient(gateway.port())) {
            casBefore = writeAcknowledged(c, "clean-", 2000);
            c.set("counter", "41", 0, 0);
            c.call(INCREMENT, arithmeticExtras(1, 0, 0), bytes("counter"), NONE, 0);
            c.call(APPEND, NONE, bytes("clean-0"), bytes("+tail"), 0);
            c.call(DELETE, NONE, bytes("clean-1"), NONE, 0);
            c.set("expiring", "x", 0, 3600);
        }
        try (TestGateway gateway = TestGateway.start(settings); BinaryClient c = new BinaryClient(gateway.port())) {
            for (int i = 2; i < 2000; i++) {
                assertEquals("value-" + i, c.get("clean-" + i).valueText());
            }
            assertEquals("value-0+tail", c.get("clean-0").valueText());
            assertEquals(0x0001, c.get("clean-1").status(), "a delete is as durable as a set");
            assertEquals("42", c.get("counter").valueText());
            assertEquals(0, c.get("expiring").status());
            assertTrue(c.set("after-restart", "x", 0, 0).cas() > casBefore, "CAS values never repeat after a restart");
        }
    }

    @Test
    void aKilledGatewayLosesNoAcknowledgedWrite(@TempDir Path data) throws Exception {
        try (ChildGateway child = ChildGateway.start(data.resolve("gateway.log"), "local.path=" + data)) {
            try (BinaryClient c = new BinaryClient(child.port())) {
                writeAcknowledged(c, "killed-", 3000);
            }
            child.kill();
        }
        try (TestGateway gateway = TestGateway.start(Map.of("local.path", data.toString()));
             BinaryClient c = new BinaryClient(gateway.port())) {
            assertAllPresent(c, "killed-", 3000);
        }
    }

    @Test
    void expiredItemsAreNeverReturnedAndArePurgedInTheBackground() throws Exception {
        try (TestGateway gateway = TestGateway.start(Map.of("local.purge_interval_ms", "100"));
             BinaryClient c = new BinaryClient(gateway.port())) {
            for (int i = 0; i < 50; i++) {
                c.set("purged-" + i, "x", 0, 1);
            }
            assertEquals("50", itemCount(c));
            Thread.sleep(1100);
            assertEquals(0x0001, c.get("purged-7").status());
            long deadline = System.currentTimeMillis() + 5000;
            while (!itemCount(c).equals("0") && System.currentTimeMillis() < deadline) {
                Thread.sleep(50);
            }
            assertEquals("0", itemCount(c), "expired items still held after purging");
        }
    }

    private static String itemCount(BinaryClient c) throws Exception {
        c.send(frame(STAT, NONE, NONE, NONE, 0, 1));
        String items = null;
        while (true) {
            Response r = c.read();
            if (r.key().length == 0) {
                return items;
            }
            if (r.keyText().equals("curr_items")) {
                items = r.valueText();
            }
        }
    }
}
